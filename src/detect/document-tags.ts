/**
 * The tags documents carry (reference admin §1.5, §4.6): per watchlist the time it first hit and
 * the segments it hit (the `watchlists` list and `watchlist_<id>` of process and binary
 * documents), and per feed the highest score of its reports that hit, their ids, the top one's
 * link and the latest hit (`alliance_score_<feed>`, `alliance_data_<feed>`, `alliance_link_<feed>`,
 * `alliance_updated_<feed>`). A process document carries the tags of every segment of its process.
 *
 * The embedded store reads them in a read worker (document-tags.sqlite.ts): a page of
 * search results joins every segment of each listed process (16,000 for 100 chrome.exe rows of the
 * search benchmark), which on the request thread held the event loop for milliseconds per page
 * once the hit tables fill.
 */
import type { SqlValue } from '../db/database.js';

export interface WatchlistTag {
  watchlistId: number;
  /** The first hit. */
  hitMs: number;
  /** Segment ids (server epoch ms) of the segments hit; empty on binaries. */
  segmentIds: number[];
}

export interface FeedTag {
  feedName: string;
  score: number;
  reportIds: string[];
  /** The highest-scoring report's link. */
  link: string;
  updatedMs: number;
}

export interface DocumentTags {
  watchlists: WatchlistTag[];
  feeds: FeedTag[];
}

const CHUNK = 500;

/** Where documents' tags are read: one implementation per database, chosen by the container. */
export interface DocumentTagsReader {
  /** Tags of process documents (all segments of each one's process), by segment row. */
  segmentTags(segmentRows: readonly number[]): Promise<Map<number, DocumentTags>>;
  /** Tags of binary documents, by md5 in lower case. */
  binaryTags(md5s: readonly string[]): Promise<Map<string, DocumentTags>>;
}

/** The watchlist and feed tags of process documents, by segment row (segmentTags through the detection sink). */
export type SegmentTagsSource = (segmentRows: readonly number[]) => Promise<Map<number, DocumentTags>>;

/** Runs one SELECT with its parameters and returns its rows. */
export type RowReader = <T>(sql: string, params: readonly SqlValue[]) => T[];

/** One SELECT the tag lookups need: the lookup yields it and is resumed with its rows, read by whichever driver runs it. */
export interface TagRead {
  sql: string;
  params: readonly SqlValue[];
}

/** A lookup as a sequence of reads, so one text serves the synchronous worker and an asynchronous database alike. */
export type TagLookup<K> = Generator<TagRead, Map<K, DocumentTags>, unknown[]>;

/** Runs a lookup on a synchronous connection (the embedded store's read worker). */
export function readTagsNow<K>(lookup: TagLookup<K>, read: RowReader): Map<K, DocumentTags> {
  let step = lookup.next([]);
  while (!step.done) step = lookup.next(read(step.value.sql, step.value.params));
  return step.value;
}

/** Runs a lookup on an asynchronous database (PostgreSQL). */
export async function readTags<K>(lookup: TagLookup<K>, read: (sql: string, params: readonly SqlValue[]) => Promise<unknown[]>): Promise<Map<K, DocumentTags>> {
  let step = lookup.next([]);
  while (!step.done) step = lookup.next(await read(step.value.sql, step.value.params));
  return step.value;
}

export function segmentTags(read: RowReader, segmentRows: readonly number[]): Map<number, DocumentTags> {
  return readTagsNow(segmentTagLookup(segmentRows), read);
}

export function binaryTags(read: RowReader, md5s: readonly string[]): Map<string, DocumentTags> {
  return readTagsNow(binaryTagLookup(md5s), read);
}

export function* segmentTagLookup(segmentRows: readonly number[]): TagLookup<number> {
  const tags = new Map<number, DocumentTags>();
  for (let i = 0; i < segmentRows.length; i += CHUNK) {
    const chunk = segmentRows.slice(i, i + CHUNK);
    const list = chunk.map(() => '?').join(', ');
    const watchlists = yield* rowsOf<{ asked: number; watchlist_id: number; hit_ms: number; segment_id: number }>(
      `SELECT s0.id AS asked, h.watchlist_id, h.hit_ms, s.segment_id
       FROM segments s0 JOIN segments s ON s.process_id = s0.process_id JOIN watchlist_process_hits h ON h.segment_row = s.id
       WHERE s0.id IN (${list}) ORDER BY h.watchlist_id, s.segment_id`,
      chunk,
    );
    for (const row of watchlists) addWatchlist(tags, row.asked, row.watchlist_id, row.hit_ms, row.segment_id);
    const feeds = yield* rowsOf<FeedHitRow<number>>(
      `SELECT s0.id AS asked, f.name AS feed_name, r.score, r.report_id, r.link, h.hit_ms
       FROM segments s0 JOIN segments s ON s.process_id = s0.process_id JOIN feed_process_hits h ON h.segment_row = s.id
         JOIN threat_reports r ON r.id = h.report_row JOIN feeds f ON f.id = r.feed_id
       WHERE s0.id IN (${list}) ORDER BY f.name, r.score DESC, r.report_id`,
      chunk,
    );
    for (const row of feeds) addFeed(tags, row);
  }
  return tags;
}

/** The watchlist and feed tags of binary documents, by md5 in lower case (binaryTags through the detection sink). */
export type BinaryTagsSource = (md5s: readonly string[]) => Promise<Map<string, DocumentTags>>;

export function* binaryTagLookup(md5s: readonly string[]): TagLookup<string> {
  const tags = new Map<string, DocumentTags>();
  for (let i = 0; i < md5s.length; i += CHUNK) {
    const chunk: SqlValue[] = md5s.slice(i, i + CHUNK);
    const list = chunk.map(() => '?').join(', ');
    const watchlists = yield* rowsOf<{ md5: string; watchlist_id: number; hit_ms: number }>(
      `SELECT md5, watchlist_id, hit_ms FROM watchlist_binary_hits WHERE md5 IN (${list}) ORDER BY watchlist_id`, chunk,
    );
    for (const row of watchlists) addWatchlist(tags, row.md5, row.watchlist_id, row.hit_ms);
    const feeds = yield* rowsOf<FeedHitRow<string>>(
      `SELECT h.md5 AS asked, f.name AS feed_name, r.score, r.report_id, r.link, h.hit_ms
       FROM feed_binary_hits h JOIN threat_reports r ON r.id = h.report_row JOIN feeds f ON f.id = r.feed_id
       WHERE h.md5 IN (${list}) ORDER BY f.name, r.score DESC, r.report_id`,
      chunk,
    );
    for (const row of feeds) addFeed(tags, row);
  }
  return tags;
}

function* rowsOf<T>(sql: string, params: readonly SqlValue[]): Generator<TagRead, T[], unknown[]> {
  return (yield { sql, params }) as T[];
}

interface FeedHitRow<K> {
  asked: K;
  feed_name: string;
  score: number;
  report_id: string;
  link: string;
  hit_ms: number;
}

function entry<K>(tags: Map<K, DocumentTags>, key: K): DocumentTags {
  let found = tags.get(key);
  if (!found) tags.set(key, (found = { watchlists: [], feeds: [] }));
  return found;
}

function addWatchlist<K>(tags: Map<K, DocumentTags>, key: K, watchlistId: number, hitMs: number, segmentId?: number): void {
  const watchlists = entry(tags, key).watchlists;
  let tag = watchlists.find((t) => t.watchlistId === watchlistId);
  if (!tag) watchlists.push((tag = { watchlistId, hitMs, segmentIds: [] }));
  tag.hitMs = Math.min(tag.hitMs, hitMs);
  if (segmentId !== undefined) tag.segmentIds.push(segmentId);
}

/** Rows come highest score first per feed, so the first row of a feed names its link. */
function addFeed<K>(tags: Map<K, DocumentTags>, row: FeedHitRow<K>): void {
  const feeds = entry(tags, row.asked).feeds;
  const tag = feeds.find((t) => t.feedName === row.feed_name);
  if (!tag) {
    feeds.push({ feedName: row.feed_name, score: row.score, reportIds: [row.report_id], link: row.link, updatedMs: row.hit_ms });
    return;
  }
  if (!tag.reportIds.includes(row.report_id)) tag.reportIds.push(row.report_id);
  tag.updatedMs = Math.max(tag.updatedMs, row.hit_ms);
}
