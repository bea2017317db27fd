/**
 * Which fields a process search facets on, and where each facet's values come from. Carbon Black's
 * Solr faceted on any indexed field (reference core §3.2: refuse only fields that do not exist), so
 * besides the facets its console listed (FACETS, kept tallied) every field of the query catalogue
 * is a facet under its search name, and `username` is `username_full` (the interface
 * specification's own example). Values are counted over the matching documents, as the listed
 * facets are: segments, or processes when grouped.
 *
 * Exceptions, where a field's values cannot be listed as such: a binary field counts the binary of
 * the process itself (not a `_parent` or `_child` join); `observed_filename` is the path the process
 * ran from (the name under which its binary was observed there); `tampered` lists only `true`;
 * `md5` and `sha256` list the process's own hash. Fields Vigil records nothing for
 * (process_id, parent_id as 64-bit numbers, blocked_status, EMET) answer an empty list; watchlist
 * and feed fields (`watchlist_<id>`, `alliance_*`) are no facets.
 */
import { METADATA_PATH } from '../../query/binary-metadata.js';
import { FIELDS } from '../../query/fields.js';
import { bigIntToIpv6, intToIpv4 } from '../../query/values/ip.js';
import { FACET_LIMIT, FACETS, type FacetCount } from './process-search.plan.js';

/** How a facet value is shown: as stored, a group's name, a day, or an address in its usual notation. */
export type FacetRender = 'value' | 'group' | 'day' | 'ipv4' | 'ipv6';

export type ProcessFacetSpec =
  /** SQL over `p` (the process): counted per process, weighted by its matching segments. */
  | { level: 'process'; expr: string; order: 'count' | 'name'; recentBuckets?: number; render: FacetRender }
  /** SQL over `s` (the segment). */
  | { level: 'segment'; expr: string; order: 'count' | 'name'; recentBuckets?: number; render: FacetRender }
  /** The values of an event term field (`t` is its dictionary row): segments holding each. */
  | { level: 'event'; field: string; value: string; render: FacetRender }
  | { level: 'none' };

const DAY = 86_400_000;
const byCount = (expr: string, render: FacetRender = 'value') => ({ level: 'process', expr, order: 'count', render }) as const;
const perSegment = (expr: string) => ({ level: 'segment', expr, order: 'count', render: 'value' }) as const;
const recentDays = (level: 'process' | 'segment', expr: string) =>
  ({ level, expr: `${expr} / ${DAY}`, order: 'name', recentBuckets: 30, render: 'day' }) as const;
const event = (field: string, render: FacetRender = 'value', value = 't.value') => ({ level: 'event', field, value, render }) as const;
/** A field of the process's own binary. */
const ofBinary = (expr: string) => byCount(`(SELECT ${expr} FROM binaries b WHERE b.md5 = p.md5)`);
const sha256Of = (md5: string) => `(SELECT sha256 FROM binaries WHERE md5 = ${md5})`;

/** The catalogue fields whose facet is not the one SQL expression their name suggests. */
const CATALOGUE: Record<string, ProcessFacetSpec> = {
  process_sha256: byCount('p.sha256'),
  process_pid: byCount('p.pid'),
  parent_md5: byCount('p.parent_md5'),
  parent_sha256: byCount(sha256Of('p.parent_md5')),
  parent_pid: byCount('p.parent_pid'),
  path: byCount('p.path'),
  cmdline: byCount('p.cmdline'),
  username: byCount('p.username'),
  sensor_id: byCount('p.sensor_id'),
  md5: byCount('p.md5'),
  sha256: byCount('p.sha256'),
  last_update: recentDays('segment', 's.last_update_ms'),
  last_server_update: recentDays('segment', 's.last_server_update_ms'),
  has_emet_config: byCount("'false'"),
  has_emet_event: byCount("'false'"),
  tampered: event('tampered'),
  ipaddr: event('ipaddr', 'ipv4'),
  ipv6addr: event('ipv6addr', 'ipv6'),
  childproc_sha256: event('childproc_md5', 'value', sha256Of('t.value')),
  crossproc_sha256: event('crossproc_md5', 'value', sha256Of('t.value')),
  filewrite_sha256: event('filewrite_md5', 'value', sha256Of('t.value')),
  observed_filename: byCount('p.path'),
  orig_mod_len: ofBinary('b.size'),
  copied_mod_len: ofBinary('b.stored_size'),
  host_count: ofBinary('(SELECT count(DISTINCT o.sensor_id) FROM binary_observations o WHERE o.md5 = b.md5)'),
  server_added_timestamp: recentDays('process', ofBinary('b.first_seen_ms').expr),
  digsig_result: ofBinary(`coalesce(json_extract(b.metadata, '${METADATA_PATH['digsig_result']}'), '(Unknown)')`),
  process_id: { level: 'none' },
  parent_id: { level: 'none' },
  blocked_status: { level: 'none' },
};

function catalogueFacet(name: string, type: string, source: string | undefined): ProcessFacetSpec | undefined {
  const special = CATALOGUE[name];
  if (special) return special;
  if (source === 'event') return event(name);
  const path = METADATA_PATH[name];
  if (source === 'binary' && path) {
    const value = `json_extract(b.metadata, '${path}')`;
    // JSON booleans read as 1 and 0 in SQLite; the facet shows them as the query language writes them.
    return ofBinary(type === 'bool' ? `CASE ${value} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END` : value);
  }
  if (/_count$/u.test(name)) return perSegment(`s.${name}`);
  return undefined;
}

function listedFacet(name: keyof typeof FACETS): ProcessFacetSpec {
  const spec: { expr: string; order: 'count' | 'name'; recentBuckets?: number } = FACETS[name];
  const render: FacetRender = name === 'group' ? 'group' : name === 'start' ? 'day' : 'value';
  return { level: 'process', ...spec, render };
}

/** Every process facet by its name: the listed ones first, then the catalogue's. */
export const PROCESS_FACETS: ReadonlyMap<string, ProcessFacetSpec> = new Map([
  ...(Object.keys(FACETS) as (keyof typeof FACETS)[]).map((name) => [name, listedFacet(name)] as const),
  ...FIELDS.flatMap((def) => {
    if (!def.process || def.name in FACETS) return [];
    const spec = catalogueFacet(def.name, def.type, def.process);
    return spec ? [[def.name, spec] as const] : [];
  }),
]);

/** The listed facet whose tally a facet reads: its own, or `username_full` for `username`. */
export function tallyOf(name: string): keyof typeof FACETS | undefined {
  if (name === 'username') return 'username_full';
  return name in FACETS ? (name as keyof typeof FACETS) : undefined;
}

/** A facet's values as read: the value (null: none) and the documents holding it. */
export type FacetRows = [string | number | null, number][];

/**
 * The entries a facet shows: time buckets of the recent ones in time order, other values by count
 * (ties by value), at most FACET_LIMIT, each named as its render says.
 */
export function facetEntries(spec: Exclude<ProcessFacetSpec, { level: 'none' }>, rows: FacetRows, nowMs: number,
  groupNames: () => Map<number, string>): FacetCount[] {
  let counts = rows.filter(([value, n]) => n > 0 && value !== null);
  if ('recentBuckets' in spec && spec.recentBuckets !== undefined) {
    const today = Math.floor(nowMs / DAY);
    const oldest = today - spec.recentBuckets;
    counts = counts.filter(([day]) => Number(day) > oldest && Number(day) <= today);
  }
  if ('order' in spec && spec.order === 'name') counts.sort((a, b) => Number(a[0]) - Number(b[0]));
  else counts.sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));
  const names = spec.render === 'group' ? groupNames() : undefined;
  return counts.slice(0, FACET_LIMIT).map(([value, count]) => ({ name: facetName(spec.render, value, names), count }));
}

function facetName(render: FacetRender, value: string | number | null, groups: Map<number, string> | undefined): string {
  switch (render) {
    case 'group':
      return groups?.get(Number(value)) ?? String(value);
    case 'day':
      return new Date(Number(value) * DAY).toISOString().replace('.000Z', 'Z');
    case 'ipv4':
      return intToIpv4(parseInt(String(value), 16));
    case 'ipv6':
      return bigIntToIpv6(BigInt(`0x${String(value)}`));
    default:
      return String(value);
  }
}
