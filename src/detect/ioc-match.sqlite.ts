/**
 * Feed value IOCs (md5, sha256, ipv4, ipv6, dns, ja3, ja3s) against stored data, in a read
 * worker. Values were normalized as events are (cbfeed.ts, terms.ts), so matching is equality:
 * md5 and sha256 against the process's own hash and the md5s its events name (children, modules,
 * written files) and against known binaries; addresses against the address terms (fixed-width hex);
 * dns against the domain terms. Only reports of enabled feeds that are not deleted count, and a
 * document a report already tagged is not reported again.
 *
 * At ingest the event side is a lookup of the IOC terms (dictionary ids whose value some IOC holds,
 * kept per worker and extended with the terms added since) in the postings of the new segments.
 */
import type Database from 'better-sqlite3';
import { cachedStatement } from '../db/dialects/sqlite-statements.js';
import type { ValueIocType } from '../modules/threat-reports/threat-report.js';
import { bigIntToIpv6, intToIpv4 } from '../query/values/ip.js';
import type { IocHit } from './match.plan.js';

/** Which dictionary field holds each IOC type's values, and whether as address hex. */
const TERM_FIELDS: readonly [ValueIocType, string, boolean][] = [
  ['md5', 'childproc_md5', false], ['md5', 'filewrite_md5', false], ['md5', 'modload_md5', false],
  ['ipv4', 'ipaddr', true], ['ipv6', 'ipv6addr', true], ['dns', 'domain', false], ['ja3', 'ja3', false], ['ja3s', 'ja3s', false],
];
const TYPE_OF_FIELD = new Map(TERM_FIELDS.map(([type, field]) => [field, type]));
const FIELDS_CTE = `fields(type, field, hex) AS (VALUES ${TERM_FIELDS.map(([t, f, h]) => `('${t}', '${f}', ${h ? 1 : 0})`).join(', ')})`;

const LIVE_IOCS = `iocs AS (SELECT i.report_row, i.ioc_type, i.value, i.address_hex FROM report_iocs i
  JOIN threat_reports r ON r.id = i.report_row JOIN feeds f ON f.id = r.feed_id WHERE f.enabled = 1 AND r.is_deleted = 0)`;
const CHOSEN_IOCS = `iocs AS (SELECT i.report_row, i.ioc_type, i.value, i.address_hex FROM report_iocs i
  JOIN threat_reports r ON r.id = i.report_row JOIN feeds f ON f.id = r.feed_id
  WHERE f.enabled = 1 AND r.is_deleted = 0 AND (@chosen IS NULL OR i.report_row IN (SELECT value FROM json_each(@chosen))))`;

type HitRow = [reportRow: number, type: ValueIocType, value: string, document: number | string];

/** Every document, over all stored data, holding a value IOC of these reports (all when null). */
export function iocsEverywhere(db: Database.Database, reportRows: number[] | null): IocHit[] {
  const chosen = reportRows === null ? null : JSON.stringify(reportRows);
  const segments = cachedStatement(db, `WITH ${CHOSEN_IOCS}, ${FIELDS_CTE}
    SELECT c.report_row, c.ioc_type, c.value, s.id FROM iocs c CROSS JOIN processes p ON p.md5 = c.value
      CROSS JOIN segments s ON s.process_id = p.id WHERE c.ioc_type = 'md5'
    UNION ALL SELECT c.report_row, c.ioc_type, c.value, s.id FROM iocs c JOIN processes p ON p.sha256 = c.value
      JOIN segments s ON s.process_id = p.id WHERE c.ioc_type = 'sha256'
    UNION ALL SELECT c.report_row, c.ioc_type, c.value, e.segment_row FROM iocs c JOIN fields m ON m.type = c.ioc_type
      CROSS JOIN event_terms t ON t.field = m.field AND t.value = (CASE WHEN m.hex THEN c.address_hex ELSE c.value END)
      CROSS JOIN event_postings e ON e.term_id = t.id`).raw().all({ chosen }) as HitRow[];
  const binaries = cachedStatement(db, `WITH ${CHOSEN_IOCS}
    SELECT c.report_row, c.ioc_type, c.value, b.md5 FROM iocs c JOIN binaries b ON b.md5 = c.value WHERE c.ioc_type = 'md5'
    UNION ALL SELECT c.report_row, c.ioc_type, c.value, b.md5 FROM iocs c JOIN binaries b ON b.sha256 = c.value WHERE c.ioc_type = 'sha256'`)
    .raw().all({ chosen }) as HitRow[];
  return untagged(db, [...segments.map((row) => segmentHit(row)), ...binaries.map(([reportRow, type, value, md5]) => ({ reportRow, type, value, md5: String(md5) }))]);
}

interface TermCache {
  version: number;
  lastTermId: number;
  /** Dictionary id → the IOC (type, value) it holds. */
  terms: Map<number, { type: ValueIocType; value: string }>;
}

const caches = new WeakMap<Database.Database, TermCache>();

/** Value IOCs in the segments written since the last run: `updated` rows by probe, rows above `afterRow` by range. */
export function iocsInSegments(db: Database.Database, iocVersion: number, afterRow: number, fresh: readonly number[]): IocHit[] {
  if (fresh.length === 0) return [];
  const list = JSON.stringify(fresh);
  // One join per hash, so each is a lookup of (type, value) in report_iocs' key.
  const own = (['md5', 'sha256'] as const).flatMap((hash) => cachedStatement(db, `WITH ${LIVE_IOCS}
    SELECT c.report_row, c.ioc_type, c.value, s.id FROM json_each(?) k CROSS JOIN segments s ON s.id = k.value
      CROSS JOIN processes p ON p.id = s.process_id CROSS JOIN iocs c ON c.ioc_type = '${hash}' AND c.value = p.${hash}`)
    .raw().all(list) as HitRow[]);
  const terms = iocTerms(db, iocVersion);
  const hits = own.map((row) => segmentHit(row));
  if (terms.size > 0) {
    const ids = JSON.stringify([...terms.keys()]);
    const updated = JSON.stringify(fresh.filter((row) => row <= afterRow));
    const postings = [
      ...cachedStatement(db, `SELECT e.term_id, e.segment_row FROM json_each(?) k CROSS JOIN event_postings e
        ON e.term_id = k.value AND e.segment_row > ?`).raw().all(ids, afterRow),
      ...cachedStatement(db, `SELECT e.term_id, e.segment_row FROM json_each(?) k CROSS JOIN json_each(?) u
        CROSS JOIN event_postings e ON e.term_id = k.value AND e.segment_row = u.value`).raw().all(ids, updated),
    ] as [number, number][];
    const reports = cachedStatement(db, `WITH ${LIVE_IOCS} SELECT report_row FROM iocs WHERE ioc_type = ? AND value = ?`).pluck();
    for (const [termId, segment] of postings) {
      const ioc = terms.get(termId)!;
      for (const reportRow of reports.all(ioc.type, ioc.value) as number[]) hits.push({ reportRow, ...ioc, segment });
    }
  }
  return untagged(db, hits);
}

/** The dictionary ids holding IOC values: rebuilt when the IOCs changed, else extended with new terms. */
function iocTerms(db: Database.Database, version: number): Map<number, { type: ValueIocType; value: string }> {
  let cache = caches.get(db);
  const lastTermId = cachedStatement(db, 'SELECT coalesce(max(id), 0) FROM event_terms').pluck().get() as number;
  if (!cache || cache.version !== version) {
    const rows = cachedStatement(db, `WITH ${LIVE_IOCS}, ${FIELDS_CTE}
      SELECT DISTINCT t.id, c.ioc_type, c.value FROM iocs c JOIN fields m ON m.type = c.ioc_type
        CROSS JOIN event_terms t ON t.field = m.field AND t.value = (CASE WHEN m.hex THEN c.address_hex ELSE c.value END)`)
      .raw().all() as [number, ValueIocType, string][];
    cache = { version, lastTermId, terms: new Map(rows.map(([id, type, value]) => [id, { type, value }])) };
    caches.set(db, cache);
    return cache.terms;
  }
  if (lastTermId > cache.lastTermId) {
    const known = cachedStatement(db, `SELECT 1 FROM report_iocs WHERE ioc_type = ? AND value = ? LIMIT 1`).pluck();
    const added = cachedStatement(db, 'SELECT id, field, value FROM event_terms WHERE id > ? AND id <= ?').raw()
      .all(cache.lastTermId, lastTermId) as [number, string, string][];
    for (const [id, field, stored] of added) {
      const type = TYPE_OF_FIELD.get(field);
      if (!type) continue;
      const value = type === 'ipv4' ? intToIpv4(parseInt(stored, 16)) : type === 'ipv6' ? bigIntToIpv6(BigInt(`0x${stored}`)) : stored;
      if (known.get(type, value)) cache.terms.set(id, { type, value });
    }
    cache.lastTermId = lastTermId;
  }
  return cache.terms;
}

function segmentHit([reportRow, type, value, segment]: HitRow): IocHit {
  return { reportRow, type, value, segment: Number(segment) };
}

/** Drops hits on documents the report already tagged, and repeats. */
function untagged(db: Database.Database, hits: IocHit[]): IocHit[] {
  const onProcess = cachedStatement(db, 'SELECT 1 FROM feed_process_hits WHERE report_row = ? AND segment_row = ?').pluck();
  const onBinary = cachedStatement(db, 'SELECT 1 FROM feed_binary_hits WHERE report_row = ? AND md5 = ?').pluck();
  const seen = new Set<string>();
  return hits.filter((hit) => {
    const key = `${hit.reportRow}:${hit.segment ?? hit.md5}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return hit.segment !== undefined ? !onProcess.get(hit.reportRow, hit.segment) : !onBinary.get(hit.reportRow, hit.md5);
  });
}
