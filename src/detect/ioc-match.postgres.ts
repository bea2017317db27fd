/**
 * Feed value IOCs (md5, sha256, ipv4, ipv6, dns, ja3, ja3s) against stored data on PostgreSQL:
 * the same rules as the embedded store's (ioc-match.sqlite.ts, which gives them), as SQL. Values
 * were normalized as events are, so matching is equality: hashes against the process's own and
 * the md5s its events name, addresses (fixed-width hex) and names against the event terms, which
 * here are `field:value` strings in the GIN-indexed arrays of segment_terms. Only reports of
 * enabled feeds that are not deleted count, and a document a report already tagged is left out.
 */
import type { SqlExecutor, SqlValue } from '../db/database.js';
import type { ValueIocType } from '../modules/threat-reports/threat-report.js';
import type { IocHit } from './match.plan.js';

/** Which term field holds each IOC type's values, and whether as address hex. */
const TERM_FIELDS: readonly [ValueIocType, string, boolean][] = [
  ['md5', 'childproc_md5', false], ['md5', 'filewrite_md5', false], ['md5', 'modload_md5', false],
  ['ipv4', 'ipaddr', true], ['ipv6', 'ipv6addr', true], ['dns', 'domain', false], ['ja3', 'ja3', false], ['ja3s', 'ja3s', false],
];
const FIELDS_CTE = `fields(type, field, hex) AS (VALUES ${TERM_FIELDS.map(([t, f, h]) => `('${t}', '${f}', ${h ? 'TRUE' : 'FALSE'})`).join(', ')})`;

function iocsCte(reportRows: readonly number[] | null): string {
  const chosen = reportRows === null ? '' : ` AND i.report_row IN (${reportRows.length > 0 ? reportRows.map(() => '?').join(', ') : 'NULL'})`;
  return `iocs AS (SELECT i.report_row, i.ioc_type, i.value, i.address_hex FROM report_iocs i
    JOIN threat_reports r ON r.id = i.report_row JOIN feeds f ON f.id = r.feed_id WHERE f.enabled = 1 AND r.is_deleted = 0${chosen})`;
}

const UNTAGGED_SEGMENT = 'NOT EXISTS (SELECT 1 FROM feed_process_hits h WHERE h.report_row = c.report_row AND h.segment_row = s.id)';
const UNTAGGED_BINARY = 'NOT EXISTS (SELECT 1 FROM feed_binary_hits h WHERE h.report_row = c.report_row AND h.md5 = b.md5)';

interface HitRow {
  report_row: number;
  ioc_type: ValueIocType;
  value: string;
  document: number | string;
}

/** Segments holding a value IOC of these reports (all when null): written since fromMs, or all stored (null). */
async function segmentHits(tx: SqlExecutor, reportRows: readonly number[] | null, fromMs: number | null): Promise<IocHit[]> {
  const since = fromMs === null ? '' : ' AND s.last_server_update_ms >= ?';
  const chosen: SqlValue[] = reportRows === null ? [] : [...reportRows];
  const sinceParams: SqlValue[] = fromMs === null ? [] : [fromMs];
  const rows = await tx.all<HitRow>(
    `WITH ${iocsCte(reportRows)}, ${FIELDS_CTE}
     SELECT c.report_row, c.ioc_type, c.value, s.id AS document FROM iocs c JOIN processes p ON p.md5 = c.value
       JOIN segments s ON s.process_id = p.id WHERE c.ioc_type = 'md5'${since} AND ${UNTAGGED_SEGMENT}
     UNION ALL SELECT c.report_row, c.ioc_type, c.value, s.id FROM iocs c JOIN processes p ON p.sha256 = c.value
       JOIN segments s ON s.process_id = p.id WHERE c.ioc_type = 'sha256'${since} AND ${UNTAGGED_SEGMENT}
     UNION ALL SELECT c.report_row, c.ioc_type, c.value, s.id FROM iocs c JOIN fields m ON m.type = c.ioc_type
       JOIN segment_terms st ON st.terms @> ARRAY[m.field || ':' || CASE WHEN m.hex THEN c.address_hex ELSE c.value END]
       JOIN segments s ON s.sensor_id = st.sensor_id AND s.id = st.segment_row WHERE TRUE${since} AND ${UNTAGGED_SEGMENT}`,
    [...chosen, ...sinceParams, ...sinceParams, ...sinceParams],
  );
  return rows.map((row) => ({ reportRow: row.report_row, type: row.ioc_type, value: row.value, segment: Number(row.document) }));
}

async function binaryHits(tx: SqlExecutor, reportRows: readonly number[] | null): Promise<IocHit[]> {
  const rows = await tx.all<HitRow>(
    `WITH ${iocsCte(reportRows)}
     SELECT c.report_row, c.ioc_type, c.value, b.md5 AS document FROM iocs c JOIN binaries b ON b.md5 = c.value
       WHERE c.ioc_type = 'md5' AND ${UNTAGGED_BINARY}
     UNION ALL SELECT c.report_row, c.ioc_type, c.value, b.md5 FROM iocs c JOIN binaries b ON b.sha256 = c.value
       WHERE c.ioc_type = 'sha256' AND ${UNTAGGED_BINARY}`,
    reportRows === null ? [] : [...reportRows],
  );
  return rows.map((row) => ({ reportRow: row.report_row, type: row.ioc_type, value: row.value, md5: String(row.document) }));
}

/** Every document, over all stored data, holding a value IOC of these reports (all when null). */
export async function iocsEverywhere(tx: SqlExecutor, reportRows: readonly number[] | null): Promise<IocHit[]> {
  return once([...await segmentHits(tx, reportRows, null), ...await binaryHits(tx, reportRows)]);
}

/** Value IOCs of every live report in the segments written since fromMs. */
export async function iocsInSegments(tx: SqlExecutor, fromMs: number): Promise<IocHit[]> {
  return once(await segmentHits(tx, null, fromMs));
}

/** One hit per report and document (a segment may hold an IOC's value in several fields). */
function once(hits: IocHit[]): IocHit[] {
  const seen = new Set<string>();
  return hits.filter((hit) => {
    const key = `${hit.reportRow}:${hit.segment ?? hit.md5}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
