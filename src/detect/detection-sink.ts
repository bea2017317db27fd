/**
 * Where the matcher (watchlists and feed IOCs against events as they arrive and on schedule)
 * hands over what it found. The sink tags the documents, updates the watchlist counters and
 * raises alerts, all in one transaction per call; the matcher only finds the hits. Alerts are
 * raised once per watchlist or report and process (or binary), when its first hit tags it, and
 * only when the watchlist's or feed's alert action (type 3) is on. Ignored, deleted or
 * non-positive (score <= 0, "goodness") reports tag without alerting; disabled watchlists and
 * feeds do neither.
 */
import { randomUUID } from 'node:crypto';
import type { ValueIocType } from '../modules/threat-reports/threat-report.js';
import type { CursorAdvance, DetectionStore, IocReport, QueryReport } from './detection.store.js';
import type { DocumentTags, DocumentTagsReader } from './document-tags.js';

/** One run of a watchlist's search, at ingest or on schedule, and the documents it found. */
export interface WatchlistRun {
  watchlistId: number;
  /** When the search ran (server clock, epoch ms): it becomes search_timestamp, and last_hit when it found anything. */
  ranAtMs: number;
  /** Process segments (segments.id) found, for an events watchlist. */
  segments?: readonly number[];
  /** Binaries (md5, lower case) found, for a modules watchlist. */
  binaries?: readonly string[];
  /** Where the matcher resumes; undefined keeps the one stored. */
  cursor?: string | null;
  /** What matched in each document (keyed by segment row as text, or md5), for the alert's ioc_attr highlights. */
  highlights?: ReadonlyMap<string, readonly string[]>;
}

/** One report IOC found in one document. */
export interface FeedHit {
  reportRow: number;
  iocType: ValueIocType | 'query';
  iocValue: string;
  /** The process segment (segments.id) or the binary (md5) that holds the IOC. */
  segment?: number;
  md5?: string;
  atMs: number;
  /** Where in the document the IOC was, shown as the alert's ioc_attr (JSON). */
  iocAttr?: Readonly<Record<string, unknown>>;
}

export interface DetectionOutcome {
  /**
   * Documents reported that exist and no run had tagged before: counted in both total_hits and
   * total_tags, so a document two runs find at once counts once.
   */
  hits: number;
  /** unique_ids of the alerts raised. */
  alerts: string[];
}

export interface DetectionSink {
  watchlistRan(run: WatchlistRun): Promise<DetectionOutcome>;
  feedHits(hits: readonly FeedHit[]): Promise<DetectionOutcome>;
}

export class DetectionService implements DetectionSink {
  constructor(
    private readonly store: DetectionStore,
    private readonly tags: DocumentTagsReader,
    private readonly newAlertId: () => string = randomUUID,
  ) {}

  watchlistRan(run: WatchlistRun): Promise<DetectionOutcome> {
    return this.store.recordWatchlistRun(run, this.newAlertId);
  }

  feedHits(hits: readonly FeedHit[]): Promise<DetectionOutcome> {
    return this.store.recordFeedHits(hits, this.newAlertId);
  }

  /** The matcher's lookup at ingest: reports of enabled feeds holding any of these values (normalized as events are). */
  iocReports(type: ValueIocType, values: readonly string[]): Promise<IocReport[]> {
    return this.store.iocReports(type, values);
  }

  /** The query IOCs the scheduled pass runs, with where each resumes. */
  queryReports(): Promise<QueryReport[]> {
    return this.store.queryReports();
  }

  /** Moves the matcher's resume points (detection.store.ts says when one is left alone). */
  advanceCursors(advances: readonly CursorAdvance[], ranAtMs: number): Promise<CursorAdvance[]> {
    return this.store.advanceCursors(advances, ranAtMs);
  }

  reportRan(reportRow: number, cursor: string | null): Promise<void> {
    return this.store.recordReportRun(reportRow, cursor);
  }

  /** Watchlist and feed tags of process documents (all segments of each one's process), for search results. */
  segmentTags(segmentRows: readonly number[]): Promise<Map<number, DocumentTags>> {
    return this.tags.segmentTags(segmentRows);
  }

  binaryTags(md5s: readonly string[]): Promise<Map<string, DocumentTags>> {
    return this.tags.binaryTags(md5s);
  }
}
