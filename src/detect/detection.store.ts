/**
 * The detection store: tags documents for watchlists and feed reports, keeps the watchlist
 * counters, raises the alerts and queues the notifications of the owner's email, syslog and HTTP
 * POST actions (detection-sink.ts says when), and answers the matcher's lookups.
 * Each call is one transaction. Written against SqlDatabase; detection.store.contract.ts is its
 * contract.
 */
import type { SqlDatabase, SqlExecutor } from '../db/database.js';
import { insertAlert } from '../modules/alerts/alert-rows.js';
import type { NewAlert } from '../modules/alerts/alerts.store.js';
import type { QueryIoc, ValueIocType } from '../modules/threat-reports/threat-report.js';
import { enqueueHitNotifications } from '../modules/notifications/hit-notifications.js';
import type { NotificationPayload } from '../modules/notifications/notification.js';
import { ALERT_ACTION, hasAction, notifyingActions, type ActionOwner, type ActionRecord } from '../modules/watchlists/detection-actions.store.js';
import { watchlistIn } from '../modules/watchlists/watchlists.store.js';
import {
  alertSeverity, alertType, DEFAULT_CRITICALITY, DEFAULT_FEED_RATING, IOC_CONFIDENCE, WATCHLIST_FEED_NAME, WATCHLIST_SCORE,
  type DocumentKind,
} from './alert-facts.js';
import type { DetectionOutcome, FeedHit, WatchlistRun } from './detection-sink.js';
import { binaryFacts, processFacts, processOfSegment } from './document-facts.js';

export interface IocReport {
  reportRow: number;
  feedId: number;
  type: ValueIocType;
  value: string;
}

export interface QueryReport {
  reportRow: number;
  feedId: number;
  queries: QueryIoc[];
  cursor: string | null;
}

/** A search's resume point moving from `from` (as the matcher last read it) to `to`. */
export interface CursorAdvance {
  owner: 'watchlist' | 'report';
  id: number;
  from: string | null;
  to: string | null;
}

export interface DetectionStore {
  /**
   * Moves resume points, and a watchlist's search_timestamp, in one transaction; a cursor that is
   * no longer `from` (the search changed meanwhile, which clears it) is left alone. Answers the
   * advances that took.
   */
  advanceCursors(advances: readonly CursorAdvance[], ranAtMs: number): Promise<CursorAdvance[]>;
  recordWatchlistRun(run: WatchlistRun, newAlertId: () => string): Promise<DetectionOutcome>;
  recordFeedHits(hits: readonly FeedHit[], newAlertId: () => string): Promise<DetectionOutcome>;
  iocReports(type: ValueIocType, values: readonly string[]): Promise<IocReport[]>;
  queryReports(): Promise<QueryReport[]>;
  recordReportRun(reportRow: number, cursor: string | null): Promise<void>;
}

/** Where an alert comes from, beside the document it is about. */
type AlertSource = Pick<NewAlert, 'watchlistId' | 'watchlistName' | 'feedId' | 'feedName' | 'reportRow' | 'reportScore' | 'feedRating'
  | 'iocType' | 'iocValue' | 'iocAttr' | 'description' | 'link'>;

/** What a new hit of one watchlist or report sets off: an alert, notifications, or neither. */
interface HitActions {
  alert: boolean;
  notify: ActionRecord[];
  source: NotificationPayload['source'];
}

type Document = { kind: 'process'; segment: number } | { kind: 'binary'; md5: string };

interface FeedReportRow {
  id: number;
  feed_id: number;
  report_id: string;
  title: string;
  description: string;
  link: string;
  score: number;
  is_ignored: number | boolean;
  is_deleted: number | boolean;
  feed_name: string;
  feed_enabled: number | boolean;
  feed_rating: number | null;
}

const CHUNK = 500;

export class SqlDetectionStore implements DetectionStore {
  constructor(private readonly db: SqlDatabase) {}

  recordWatchlistRun(run: WatchlistRun, newAlertId: () => string): Promise<DetectionOutcome> {
    return this.db.transaction(async (tx) => {
      const outcome: DetectionOutcome = { hits: 0, alerts: [] };
      const watchlist = await watchlistIn(tx, run.watchlistId);
      if (!watchlist?.enabled) return outcome;
      const owner: ActionOwner = { kind: 'watchlist', id: watchlist.id };
      const actions: HitActions = {
        alert: await hasAction(tx, owner, ALERT_ACTION), notify: await notifyingActions(tx, owner),
        source: { kind: 'watchlist', id: watchlist.id, name: watchlist.name },
      };
      const documents: Document[] = watchlist.indexType === 'events'
        ? (run.segments ?? []).map((segment) => ({ kind: 'process', segment }))
        : (run.binaries ?? []).map((md5) => ({ kind: 'binary', md5: md5.toLowerCase() }));
      for (const document of documents) {
        const key = document.kind === 'process' ? String(document.segment) : document.md5;
        const source: AlertSource = {
          watchlistId: String(watchlist.id), watchlistName: watchlist.name, feedId: -1, feedName: WATCHLIST_FEED_NAME, reportRow: null,
          reportScore: WATCHLIST_SCORE, feedRating: DEFAULT_FEED_RATING, iocType: 'query', iocValue: watchlist.searchQuery,
          iocAttr: JSON.stringify({ highlights: run.highlights?.get(key) ?? [] }), description: null, link: null,
        };
        await this.tag(tx, { table: 'watchlist', owner: watchlist.id }, document, run.ranAtMs, actions, source, newAlertId, outcome);
      }
      await tx.run(
        `UPDATE watchlists SET total_hits = total_hits + ?, total_tags = total_tags + ?, search_ms = ?,
           last_hit_ms = CASE WHEN ? > 0 THEN ? ELSE last_hit_ms END,
           last_hit_count = CASE WHEN ? > 0 THEN ? ELSE last_hit_count END,
           match_cursor = CASE WHEN ? THEN ? ELSE match_cursor END
         WHERE id = ?`,
        [outcome.hits, outcome.hits, run.ranAtMs, outcome.hits, run.ranAtMs, outcome.hits, outcome.hits,
          run.cursor !== undefined, run.cursor ?? null, watchlist.id],
      );
      return outcome;
    });
  }

  advanceCursors(advances: readonly CursorAdvance[], ranAtMs: number): Promise<CursorAdvance[]> {
    return this.db.transaction(async (tx) => {
      const done: CursorAdvance[] = [];
      for (const advance of advances) {
        const [table, searched] = advance.owner === 'watchlist' ? ['watchlists', ', search_ms = ?'] : ['threat_reports', ''];
        const params = advance.owner === 'watchlist' ? [advance.to, ranAtMs] : [advance.to];
        // PostgreSQL cannot type a bare `? IS NULL` parameter: the cast names it.
        const changed = await tx.run(
          `UPDATE ${table} SET match_cursor = ?${searched} WHERE id = ? AND (match_cursor = ? OR (match_cursor IS NULL AND CAST(? AS TEXT) IS NULL))`,
          [...params, advance.id, advance.from, advance.from],
        );
        if (changed.changes > 0) done.push(advance);
      }
      return done;
    });
  }

  recordFeedHits(hits: readonly FeedHit[], newAlertId: () => string): Promise<DetectionOutcome> {
    return this.db.transaction(async (tx) => {
      const outcome: DetectionOutcome = { hits: 0, alerts: [] };
      const reports = new Map<number, FeedReportRow | undefined>();
      const feedActions = new Map<number, HitActions>();
      for (const hit of hits) {
        if (!reports.has(hit.reportRow)) reports.set(hit.reportRow, await feedReport(tx, hit.reportRow));
        const report = reports.get(hit.reportRow);
        if (!report || !report.feed_enabled) continue;
        if (!feedActions.has(report.feed_id)) {
          const owner: ActionOwner = { kind: 'feed', id: report.feed_id };
          feedActions.set(report.feed_id, {
            alert: await hasAction(tx, owner, ALERT_ACTION), notify: await notifyingActions(tx, owner),
            source: { kind: 'feed', id: report.feed_id, name: report.feed_name },
          });
        }
        const alertable = !report.is_ignored && !report.is_deleted && report.score > 0;
        const feed = feedActions.get(report.feed_id)!;
        const actions: HitActions = alertable ? feed : { ...feed, alert: false, notify: [] };
        const document: Document | undefined = hit.segment !== undefined ? { kind: 'process', segment: hit.segment }
          : hit.md5 !== undefined ? { kind: 'binary', md5: hit.md5.toLowerCase() } : undefined;
        if (!document) continue;
        const source: AlertSource = {
          watchlistId: report.report_id, watchlistName: report.title, feedId: report.feed_id, feedName: report.feed_name,
          reportRow: report.id, reportScore: report.score, feedRating: report.feed_rating ?? DEFAULT_FEED_RATING,
          iocType: hit.iocType, iocValue: hit.iocValue, iocAttr: JSON.stringify(hit.iocAttr ?? {}),
          description: report.description, link: report.link,
        };
        await this.tag(tx, { table: 'feed', owner: report.id }, document, hit.atMs, actions, source, newAlertId, outcome);
      }
      return outcome;
    });
  }

  async iocReports(type: ValueIocType, values: readonly string[]): Promise<IocReport[]> {
    const found: IocReport[] = [];
    for (let i = 0; i < values.length; i += CHUNK) {
      const chunk = values.slice(i, i + CHUNK);
      const rows = await this.db.all<{ report_row: number; feed_id: number; value: string }>(
        `SELECT i.report_row, r.feed_id, i.value FROM report_iocs i JOIN threat_reports r ON r.id = i.report_row
           JOIN feeds f ON f.id = r.feed_id
         WHERE i.ioc_type = ? AND i.value IN (${chunk.map(() => '?').join(', ')}) AND f.enabled = ? AND r.is_deleted = ?`,
        [type, ...chunk, true, false],
      );
      found.push(...rows.map((row) => ({ reportRow: row.report_row, feedId: row.feed_id, type, value: row.value })));
    }
    return found;
  }

  async queryReports(): Promise<QueryReport[]> {
    const rows = await this.db.all<{ id: number; feed_id: number; iocs: string; match_cursor: string | null }>(
      `SELECT r.id, r.feed_id, r.iocs, r.match_cursor FROM threat_reports r JOIN feeds f ON f.id = r.feed_id
       WHERE f.enabled = ? AND r.is_deleted = ? AND r.iocs LIKE '%"query"%' ORDER BY r.id`,
      [true, false],
    );
    return rows.flatMap((row) => {
      const query = (JSON.parse(row.iocs) as { query?: QueryIoc | QueryIoc[] }).query;
      if (query === undefined) return [];
      return [{ reportRow: row.id, feedId: row.feed_id, queries: Array.isArray(query) ? query : [query], cursor: row.match_cursor }];
    });
  }

  async recordReportRun(reportRow: number, cursor: string | null): Promise<void> {
    await this.db.run('UPDATE threat_reports SET match_cursor = ? WHERE id = ?', [cursor, reportRow]);
  }

  /**
   * Tags one document for a watchlist or report, counting it in the outcome, and raises the alert
   * and queues the notifications when this is the first tag of that watchlist or report on the
   * process (or binary).
   */
  private async tag(
    tx: SqlExecutor, by: { table: 'watchlist' | 'feed'; owner: number }, document: Document, atMs: number, actions: HitActions,
    source: AlertSource, newAlertId: () => string, outcome: DetectionOutcome,
  ): Promise<void> {
    const [table, ownerColumn, hosts] = by.table === 'watchlist'
      ? ['watchlist', 'watchlist_id', 'watchlist_hosts'] : ['feed', 'report_row', 'report_hosts'];
    let tagged: boolean;
    let earlier = false;
    if (document.kind === 'process') {
      const process = await processOfSegment(tx, document.segment);
      if (process === undefined) return;
      // From the process's segments to their tags (CROSS JOIN keeps that order): a tag list can be long.
      earlier = (await tx.get(
        `SELECT 1 AS found FROM segments s CROSS JOIN ${table}_process_hits h
         WHERE s.process_id = ? AND h.${ownerColumn} = ? AND h.segment_row = s.id`,
        [process.processRow, by.owner],
      )) !== undefined;
      tagged = (await tx.run(
        `INSERT INTO ${table}_process_hits (${ownerColumn}, segment_row, hit_ms, sensor_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        [by.owner, document.segment, atMs, process.sensorId],
      )).changes > 0;
      await tx.run(`INSERT INTO ${hosts} (${ownerColumn}, sensor_id) VALUES (?, ?) ON CONFLICT DO NOTHING`, [by.owner, process.sensorId]);
    } else {
      if (!(await tx.get('SELECT 1 AS found FROM binaries WHERE md5 = ?', [document.md5]))) return;
      tagged = (await tx.run(
        `INSERT INTO ${table}_binary_hits (${ownerColumn}, md5, hit_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`,
        [by.owner, document.md5, atMs],
      )).changes > 0;
    }
    // A document already tagged was found by another run at the same moment (two servers' live
    // runs read the same new segment): that run counted it, so total_hits counts it once.
    if (!tagged) return;
    outcome.hits++;
    if (earlier || (!actions.alert && actions.notify.length === 0)) return;
    const alert = await this.alertFor(tx, document, source, atMs, newAlertId(), by);
    if (actions.alert) {
      await insertAlert(tx, alert);
      outcome.alerts.push(alert.uniqueId);
    }
    await enqueueHitNotifications(tx, alert, actions.source, actions.notify);
  }

  private async alertFor(
    tx: SqlExecutor, document: Document, source: AlertSource, atMs: number, uniqueId: string, by: { table: string; owner: number },
  ): Promise<NewAlert> {
    const kind: DocumentKind = document.kind;
    const base = { ...source, uniqueId, alertType: alertType(source.iocType, kind), createdMs: atMs, iocConfidence: IOC_CONFIDENCE };
    if (document.kind === 'process') {
      const facts = (await processFacts(tx, document.segment))!;
      const [hosts, ownerColumn] = by.table === 'watchlist' ? ['watchlist_hosts', 'watchlist_id'] : ['report_hosts', 'report_row'];
      const counted = await tx.get<{ hosts: number }>(`SELECT COUNT(*) AS hosts FROM ${hosts} WHERE ${ownerColumn} = ?`, [by.owner]);
      return {
        ...base, sensorCriticality: facts.criticality, alertSeverity: alertSeverity(source.reportScore, source.feedRating, facts.criticality),
        md5: facts.md5, observedFilename: null, process: facts.process, totalHosts: counted?.hosts ?? 1,
      };
    }
    const facts = await binaryFacts(tx, document.md5);
    return {
      ...base, sensorCriticality: DEFAULT_CRITICALITY, alertSeverity: alertSeverity(source.reportScore, source.feedRating, DEFAULT_CRITICALITY),
      md5: document.md5, observedFilename: facts.observedFilename, process: null, totalHosts: facts.hosts,
    };
  }
}

async function feedReport(tx: SqlExecutor, reportRow: number): Promise<FeedReportRow | undefined> {
  return tx.get<FeedReportRow>(
    `SELECT r.id, r.feed_id, r.report_id, r.title, r.description, r.link, r.score, r.is_ignored, r.is_deleted, f.name AS feed_name,
       f.enabled AS feed_enabled, COALESCE(f.local_rating, f.provider_rating) AS feed_rating
     FROM threat_reports r JOIN feeds f ON f.id = r.feed_id WHERE r.id = ?`,
    [reportRow],
  );
}
