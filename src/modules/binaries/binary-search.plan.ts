/**
 * What a binary search asks the store for (reference core §5.2), shared by the service and the
 * read worker that runs it: sort keys and facets as SQL over `b` (binaries).
 */
import type { SqlParam } from '../../query/compile/fragment.js';

export interface BinarySearchRequest {
  /** The compiled query (src/query/compile/sqlite.ts compileBinaryCondition) over `b`. */
  condition: { sql: string; params: readonly SqlParam[] };
  /** Groups whose sensors' observations the caller may see; null: all. A binary no visible sensor saw is not found. */
  visibleGroups: number[] | null;
  sort: { key: BinarySortKey; descending: boolean };
  start: number;
  rows: number;
  facets: BinaryFacetField[];
  nowMs: number;
}

export interface BinarySearchResult {
  total: number;
  rows: BinaryRow[];
  facets: Partial<Record<BinaryFacetField, { name: string; count: number }[]>>;
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
  /** SQL over `b`, or `observed` for the filenames of the binary's (visible) observations. */
  expr: string;
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
  observed_filename_facet: { expr: 'observed', order: 'count' },
  alliance_score_virustotal: { expr: VIRUSTOTAL_SCORE, order: 'count' },
  digsig_sign_time: { expr: json('$.digsig.sign_time'), order: 'name', buckets: { unit: 'month', recent: 48 } },
  server_added_timestamp: { expr: 'b.first_seen_ms', order: 'name', buckets: { unit: 'day', recent: 30 } },
} as const satisfies Record<string, BinaryFacetSpec>;

export type BinaryFacetField = keyof typeof BINARY_FACETS;
