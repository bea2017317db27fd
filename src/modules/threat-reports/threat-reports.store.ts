/**
 * Threat reports: the reports of every feed, their IOC values, and the is_ignored flag analysts
 * set. Reports are written by feed synchronization (syncReports, inside the feeds store's
 * transaction); this store reads and searches them and flips is_ignored. Written once against
 * SqlDatabase, with the dialect's threat report query (threat-report-query.ts) for what the query
 * language compiles to; threat-reports.store.contract.ts is its contract.
 */
import type { SqlDatabase, SqlExecutor, SqlValue } from '../../db/database.js';
import type { Predicate } from '../../query/index.js';
import { textTokens } from '../../query/index.js';
import type { SortKey } from '../../query/record-search.js';
import type { FeedReport } from './threat-report.js';
import type { ThreatReportQueryDialect } from './threat-report-query.js';

export interface ThreatReportRecord {
  row: number;
  feedId: number;
  feedName: string;
  feedCategory: string | null;
  reportId: string;
  title: string;
  description: string;
  link: string;
  score: number;
  /** The feed's timestamp of the report, epoch seconds. */
  timestampS: number;
  tags: string[];
  iocs: Record<string, unknown>;
  isIgnored: boolean;
  isDeleted: boolean;
  createdMs: number;
  updatedMs: number;
}

export interface ReportPage {
  total: number;
  reports: ThreatReportRecord[];
}

export interface SyncCounts {
  added: number;
  updated: number;
  deleted: number;
}

export interface ThreatReportsStore {
  get(feedId: number, reportId: string): Promise<ThreatReportRecord | undefined>;
  /** One page of the reports the predicate matches, in the order asked (ties by row), and how many match. */
  search(predicate: Predicate, sort: readonly SortKey[], start: number, rows: number): Promise<ReportPage>;
  /** How many matching reports hold each value of a facetable field, most first (at most `limit`). */
  facet(predicate: Predicate, field: string, limit: number): Promise<{ value: string; count: number }[]>;
  /** Sets is_ignored on the reports the predicate matches; how many there were. */
  setIgnored(predicate: Predicate, ignored: boolean): Promise<number>;
  /** Sets is_ignored on the reports named, per feed id; how many were found. */
  setIgnoredByIds(ids: ReadonlyMap<number, readonly string[]>, ignored: boolean): Promise<number>;
}

interface ReportRow {
  id: number;
  feed_id: number;
  feed_name: string;
  feed_category: string | null;
  report_id: string;
  title: string;
  description: string;
  link: string;
  score: number;
  timestamp_s: number;
  tags: string;
  iocs: string;
  is_ignored: number | boolean;
  is_deleted: number | boolean;
  created_ms: number;
  updated_ms: number;
}

const FROM = 'threat_reports r JOIN feeds f ON f.id = r.feed_id';
const SELECT = `SELECT r.*, f.name AS feed_name, f.category AS feed_category FROM ${FROM}`;

/** Fields facets can count, as the column holding them. */
export const THREAT_REPORT_FACETS: Readonly<Record<string, string>> = {
  feed_name: 'f.name', feed_id: 'r.feed_id', score: 'r.score', severity_score: 'r.score', is_ignored: 'r.is_ignored', is_deleted: 'r.is_deleted',
};

export class SqlThreatReportsStore implements ThreatReportsStore {
  constructor(private readonly db: SqlDatabase, private readonly query: ThreatReportQueryDialect) {}

  async get(feedId: number, reportId: string): Promise<ThreatReportRecord | undefined> {
    const row = await this.db.get<ReportRow>(`${SELECT} WHERE r.feed_id = ? AND r.report_id = ?`, [feedId, reportId]);
    return row && toRecord(row);
  }

  async search(predicate: Predicate, sort: readonly SortKey[], start: number, rows: number): Promise<ReportPage> {
    const where = this.query.where(predicate);
    const order = [...sort.map((key) => `${sortColumn(this.query, key.field)} ${key.descending ? 'DESC' : 'ASC'}`), `r.id ${sort[0]?.descending ? 'DESC' : 'ASC'}`];
    const count = await this.db.get<{ total: number }>(`SELECT COUNT(*) AS total FROM ${FROM} WHERE ${where.sql}`, where.params);
    const page = rows === 0 ? [] : await this.db.all<ReportRow>(
      `${SELECT} WHERE ${where.sql} ORDER BY ${order.join(', ')} LIMIT ? OFFSET ?`, [...where.params, rows, start],
    );
    return { total: count!.total, reports: page.map(toRecord) };
  }

  async facet(predicate: Predicate, field: string, limit: number): Promise<{ value: string; count: number }[]> {
    const column = THREAT_REPORT_FACETS[field];
    if (!column) throw new Error(`Threat reports have no facet ${field}`);
    const where = this.query.where(predicate);
    const counts = await this.db.all<{ value: SqlValue; count: number }>(
      `SELECT ${column} AS value, COUNT(*) AS count FROM ${FROM} WHERE ${where.sql} GROUP BY ${column} ORDER BY count DESC, value LIMIT ?`,
      [...where.params, limit],
    );
    const asText = (value: SqlValue) => (field.startsWith('is_') ? String(Boolean(value)) : String(value ?? ''));
    return counts.map((entry) => ({ value: asText(entry.value), count: entry.count }));
  }

  async setIgnored(predicate: Predicate, ignored: boolean): Promise<number> {
    const where = this.query.where(predicate);
    const result = await this.db.run(
      `UPDATE threat_reports SET is_ignored = ? WHERE id IN (SELECT r.id FROM ${FROM} WHERE ${where.sql})`, [ignored, ...where.params],
    );
    return result.changes;
  }

  setIgnoredByIds(ids: ReadonlyMap<number, readonly string[]>, ignored: boolean): Promise<number> {
    return this.db.transaction(async (tx) => {
      let found = 0;
      for (const [feedId, reportIds] of ids) {
        for (const reportId of reportIds) {
          found += (await tx.run('UPDATE threat_reports SET is_ignored = ? WHERE feed_id = ? AND report_id = ?', [ignored, feedId, reportId])).changes;
        }
      }
      return found;
    });
  }
}

/**
 * Brings a feed's reports in line with a download, inside the caller's transaction. New reports
 * are added; a known report is rewritten when `full` or when its timestamp is newer (or it was
 * marked deleted); with `full`, reports the download lacks are marked deleted. A rewritten report
 * keeps is_ignored, and its query IOCs start matching from the beginning again.
 */
export async function syncReports(tx: SqlExecutor, feedId: number, reports: readonly FeedReport[], full: boolean, atMs: number): Promise<SyncCounts> {
  const known = new Map(
    (await tx.all<{ id: number; report_id: string; timestamp_s: number; is_deleted: number | boolean }>(
      'SELECT id, report_id, timestamp_s, is_deleted FROM threat_reports WHERE feed_id = ?', [feedId],
    )).map((row) => [row.report_id, row]),
  );
  const counts: SyncCounts = { added: 0, updated: 0, deleted: 0 };
  for (const report of reports) {
    const existing = known.get(report.id);
    known.delete(report.id);
    const content: SqlValue[] = [
      report.title, report.description, report.link, report.score, report.timestamp, JSON.stringify(report.tags), JSON.stringify(report.iocs),
      JSON.stringify(textTokens(report.title)), JSON.stringify(textTokens(report.description)), JSON.stringify(report.tags.flatMap(textTokens)),
    ];
    let row: number;
    if (!existing) {
      row = (await tx.get<{ id: number }>(
        `INSERT INTO threat_reports (feed_id, report_id, title, description, link, score, timestamp_s, tags, iocs, title_tokens,
           description_tokens, tags_tokens, created_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [feedId, report.id, ...content, atMs, atMs],
      ))!.id;
      counts.added++;
    } else if (full || report.timestamp > existing.timestamp_s || Boolean(existing.is_deleted)) {
      row = existing.id;
      await tx.run(
        `UPDATE threat_reports SET title = ?, description = ?, link = ?, score = ?, timestamp_s = ?, tags = ?, iocs = ?, title_tokens = ?,
           description_tokens = ?, tags_tokens = ?, updated_ms = ?, is_deleted = 0, match_cursor = NULL WHERE id = ?`,
        [...content, atMs, row],
      );
      await tx.run('DELETE FROM report_iocs WHERE report_row = ?', [row]);
      counts.updated++;
    } else {
      continue;
    }
    for (const ioc of report.values) {
      await tx.run(
        'INSERT OR IGNORE INTO report_iocs (ioc_type, value, report_row, address_hex) VALUES (?, ?, ?, ?)',
        [ioc.type, ioc.value, row, ioc.addressHex ?? null],
      );
    }
  }
  if (full) {
    for (const missing of known.values()) {
      if (missing.is_deleted) continue;
      await tx.run('UPDATE threat_reports SET is_deleted = 1, updated_ms = ? WHERE id = ?', [atMs, missing.id]);
      counts.deleted++;
    }
  }
  return counts;
}

function sortColumn(query: ThreatReportQueryDialect, field: string): string {
  const sorts: Readonly<Record<string, string>> = query.sorts;
  const column = Object.hasOwn(sorts, field) ? sorts[field] : undefined;
  if (!column) throw new Error(`Threat reports cannot sort by ${field}`);
  return column;
}

function toRecord(row: ReportRow): ThreatReportRecord {
  return {
    row: row.id,
    feedId: row.feed_id,
    feedName: row.feed_name,
    feedCategory: row.feed_category,
    reportId: row.report_id,
    title: row.title,
    description: row.description,
    link: row.link,
    score: row.score,
    timestampS: row.timestamp_s,
    tags: JSON.parse(row.tags) as string[],
    iocs: JSON.parse(row.iocs) as Record<string, unknown>,
    isIgnored: Boolean(row.is_ignored),
    isDeleted: Boolean(row.is_deleted),
    createdMs: row.created_ms,
    updatedMs: row.updated_ms,
  };
}
