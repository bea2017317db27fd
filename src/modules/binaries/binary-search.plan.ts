/**
 * What a binary search asks the store for (reference core §5.2), shared by the service and the
 * read worker that runs it: sort keys and facets as SQL over `b` (binaries).
 */
import type { Predicate } from '../../query/analysis.js';
import { METADATA_PATH } from '../../query/binary-metadata.js';
import type { SqlParam } from '../../query/compile/fragment.js';
import { FIELDS } from '../../query/fields.js';

export interface BinarySearchRequest {
  /** The analyzed query; each store compiles it for its database (where-seen fields within visibleGroups). */
  predicate: Predicate;
  /** Groups whose sensors' observations the caller may see; null: all. A binary no visible sensor saw is not found. */
  visibleGroups: number[] | null;
  sort: { key: BinarySortKey; descending: boolean };
  start: number;
  rows: number;
  /** Facet names: BINARY_FACETS' or the catalogue's (binaryFacet). */
  facets: string[];
  nowMs: number;
}

/** A request as the embedded store's read worker runs it (binary-search.sqlite.ts): the query compiled to SQLite. */
export interface CompiledBinarySearch extends Omit<BinarySearchRequest, 'predicate'> {
  /** The compiled query (src/query/compile/sqlite.ts compileBinaryCondition) over `b`. */
  condition: { sql: string; params: readonly SqlParam[] };
}

export interface BinarySearchResult {
  total: number;
  rows: BinaryRow[];
  facets: Record<string, { name: string; count: number }[]>;
}

/** A binary with the observations the caller may see. */
export interface BinaryRow {
  md5: string;
  sha256: string;
  size: number;
  stored_size: number;
  metadata: string;
  first_seen_ms: number;
  last_seen_ms: number;
  observations: BinaryObservationRow[];
}

export interface BinaryObservationRow {
  sensor_id: number;
  observed_filename: string;
  last_seen_ms: number;
  computer_name: string | null;
  os_type: string | null;
  group_id: number | null;
  group_name: string | null;
}

const json = (path: string) => `json_extract(b.metadata, '${path}')`;

export const BINARY_SORTS = {
  server_added_timestamp: 'b.first_seen_ms',
  last_seen: 'b.last_seen_ms',
  md5: 'b.md5',
  orig_mod_len: 'b.size',
  copied_mod_len: 'b.stored_size',
  company_name: json('$.company_name'),
  product_name: json('$.product_name'),
  original_filename: json('$.original_filename'),
  digsig_result: json('$.digsig.result'),
} as const;

export type BinarySortKey = keyof typeof BINARY_SORTS;

export interface BinaryFacetSpec {
  /**
   * SQL over `b`; with `observed`, over one of the binary's visible observations `o`, its sensor
   * `se` and the sensor's group `g`, counting binaries per value. `${SEEN_BY}` stands for the
   * visibility condition on an observation `o` joined to its sensor `se`.
   */
  expr: string;
  observed?: boolean;
  order: 'count' | 'name';
  /** Time facets: bucket size and how many recent buckets (reference core §5: 30 days, 48 months). */
  buckets?: { unit: 'day' | 'month'; recent: number };
}

/**
 * The score a binary carries from the feed named `virustotal` (src/detect/document-tags.ts): the
 * highest of its reports that hit it; none when no report did. The feed table's names compare
 * without case.
 */
const VIRUSTOTAL_SCORE = `(SELECT max(r.score) FROM feed_binary_hits h JOIN threat_reports r ON r.id = h.report_row
  JOIN feeds f ON f.id = r.feed_id WHERE f.name = 'virustotal' AND h.md5 = b.md5)`;

/**
 * Reference core §5's binary facets. The reference names alliance_score_virustotal without
 * saying how it buckets, so it counts like the other value facets: one entry per score, binaries
 * without a score left out.
 */
export const BINARY_FACETS = {
  product_name_facet: { expr: json('$.product_name'), order: 'count' },
  file_version_facet: { expr: json('$.file_version'), order: 'count' },
  company_name_facet: { expr: json('$.company_name'), order: 'count' },
  digsig_publisher_facet: { expr: json('$.digsig.publisher'), order: 'count' },
  digsig_result: { expr: `coalesce(${json('$.digsig.result')}, '(Unknown)')`, order: 'count' },
  observed_filename_facet: { expr: 'o.observed_filename', observed: true, order: 'count' },
  alliance_score_virustotal: { expr: VIRUSTOTAL_SCORE, order: 'count' },
  digsig_sign_time: { expr: json('$.digsig.sign_time'), order: 'name', buckets: { unit: 'month', recent: 48 } },
  server_added_timestamp: { expr: 'b.first_seen_ms', order: 'name', buckets: { unit: 'day', recent: 30 } },
} as const satisfies Record<string, BinaryFacetSpec>;

export type BinaryFacetField = keyof typeof BINARY_FACETS;

/** Where a facet expression restricts observations to those the caller may see. */
export const SEEN_BY = '{seen_by}';

/** Facets on the catalogue's binary fields under their search names (the server faceted on any indexed field). */
const CATALOGUE_FACETS: Record<string, BinaryFacetSpec> = {
  hostname: { expr: 'lower(se.computer_name)', observed: true, order: 'count' },
  group: { expr: 'lower(g.name)', observed: true, order: 'count' },
  os_type: { expr: 'lower(se.os_type)', observed: true, order: 'count' },
  observed_filename: { expr: 'o.observed_filename', observed: true, order: 'count' },
  host_count: {
    expr: `(SELECT count(DISTINCT o.sensor_id) FROM binary_observations o JOIN sensors se ON se.id = o.sensor_id WHERE o.md5 = b.md5${SEEN_BY})`,
    order: 'count',
  },
  md5: { expr: 'b.md5', order: 'count' },
  sha256: { expr: "nullif(b.sha256, '')", order: 'count' },
  orig_mod_len: { expr: 'b.size', order: 'count' },
  copied_mod_len: { expr: 'b.stored_size', order: 'count' },
  tampered: { expr: "'false'", order: 'count' },
};

/** A binary facet by name: a listed one, or a catalogue field's; undefined for no such field. */
export function binaryFacet(name: string): BinaryFacetSpec | undefined {
  if (name in BINARY_FACETS) return BINARY_FACETS[name as BinaryFacetField];
  if (CATALOGUE_FACETS[name]) return CATALOGUE_FACETS[name];
  const def = FIELDS.find((field) => field.binary && field.name === name);
  const path = def && METADATA_PATH[name];
  if (!path) return undefined;
  // JSON booleans read as 1 and 0 in SQLite; the facet shows them as the query language writes them.
  return { expr: def.type === 'bool' ? `CASE ${json(path)} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END` : json(path), order: 'count' };
}

export const BINARY_FACET_NAMES: readonly string[] = [
  ...new Set([...Object.keys(BINARY_FACETS), ...FIELDS.filter((def) => def.binary && binaryFacet(def.name)).map((def) => def.name)]),
];

const FACET_LIMIT = 200;

/** A facet's entries from its (value, count) rows: the most frequent values, or recent time buckets. */
export function facetCounts(spec: BinaryFacetSpec, counts: [unknown, number][], nowMs: number): { name: string; count: number }[] {
  const present = counts.filter(([value]) => value !== null && value !== '');
  if (!spec.buckets) {
    return present.map(([value, count]) => ({ name: String(value), count }))
      .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)).slice(0, FACET_LIMIT);
  }
  const { unit, recent } = spec.buckets;
  const bucket = (ms: number) => {
    const date = new Date(ms);
    return unit === 'day' ? Math.floor(ms / 86_400_000) : date.getUTCFullYear() * 12 + date.getUTCMonth();
  };
  const newest = bucket(nowMs);
  const buckets = new Map<number, number>();
  for (const [value, count] of present) {
    const b = bucket(Number(value));
    if (b > newest - recent && b <= newest) buckets.set(b, (buckets.get(b) ?? 0) + count);
  }
  const name = (b: number) => (unit === 'day'
    ? new Date(b * 86_400_000).toISOString()
    : new Date(Date.UTC(Math.floor(b / 12), b % 12, 1)).toISOString()).replace('.000Z', 'Z');
  return [...buckets].sort((a, b) => a[0] - b[0]).map(([b, count]) => ({ name: name(b), count }));
}
