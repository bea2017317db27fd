/**
 * Partition changes on the embedded store, run by the event writer's thread on its connection, so
 * that they are ordered with the ingest commits (docs/adr/0009-partitions.md). Each call is one
 * short transaction; a deletion is many calls of purgeStep, with ingest commits between them.
 */
import type Database from 'better-sqlite3';
import { removeChunkFile } from './partition-files.js';
import { warmName } from './partition-names.js';
import type { PartitionChange, PartitionReply, PartitionRequest } from './partitions.store.js';

/** What the writer's event store lets partition changes do to its cached state. */
export interface SegmentRowOwner {
  nextSegmentRow(): number;
  startPartition(partitionId: number, firstRow: number): void;
  forgetRows(): void;
}

interface PartitionRow {
  id: number;
  name: string;
  first_row: number;
  last_row: number | null;
  start_ms: number;
  state: string;
}

/** Segments deleted per purge step; postings are deleted for this many terms per step. */
const SEGMENTS_PER_STEP = 2_000;
const TERMS_PER_STEP = 20_000;
/** Free pages given back to the file system per step (4 MB of 4 KB pages). */
const PAGES_PER_VACUUM_STEP = 1_000;

const WITH_RANGE = `SELECT p.id, p.name, p.first_row, p.start_ms, p.state,
  (SELECT min(n.first_row) - 1 FROM event_partitions n WHERE n.first_row > p.first_row) AS last_row FROM event_partitions p`;

export class SqlitePartitionWriter {
  /** The term id up to which the postings of the partition being purged are deleted. */
  private purgedTerms = new Map<number, number>();

  constructor(private readonly db: Database.Database, private readonly store: SegmentRowOwner) {}

  /** Runs one request; call it inside a transaction of the writer's connection. */
  apply(request: PartitionRequest): PartitionReply {
    switch (request.op) {
      case 'rollover': return this.rollover(request.nowMs);
      case 'mount': return this.setMounted(request.name, request.mounted);
      case 'delete': return this.beginDelete(request.name);
      case 'purge': return this.purgeStep();
      case 'vacuum': return this.vacuumStep();
    }
  }

  /** The hot partition becomes warm under a name from its start; a new hot partition ('writer') begins. */
  rollover(nowMs: number): PartitionChange {
    const hot = this.db.prepare(`${WITH_RANGE} WHERE p.state = 'hot'`).get() as PartitionRow;
    const firstRow = Math.max(this.store.nextSegmentRow(), hot.first_row + 1);
    const name = this.freeName(warmName(hot.start_ms));
    this.db.prepare("UPDATE event_partitions SET name = ?, state = 'warm', end_ms = ? WHERE id = ?").run(name, nowMs, hot.id);
    const created = this.db.prepare("INSERT INTO event_partitions (name, first_row, start_ms, state) VALUES ('writer', ?, ?, 'hot')").run(firstRow, nowMs);
    this.store.startPartition(Number(created.lastInsertRowid), firstRow);
    return { outcome: 'done', name };
  }

  /** Mounts (warm) or unmounts (cold) a partition; its segments join or leave the derived counts. */
  setMounted(name: string, mounted: boolean): PartitionChange {
    const partition = this.visible(name);
    if (!partition) return { outcome: 'not_found', name };
    if (partition.state === 'hot') return { outcome: mounted ? 'done' : 'hot', name };
    if ((partition.state === 'warm') === mounted) return { outcome: 'done', name };
    this.count(partition, mounted ? 1 : -1);
    this.db.prepare('UPDATE event_partitions SET state = ?, user_mounted = ? WHERE id = ?').run(mounted ? 'warm' : 'cold', mounted ? 1 : 0, partition.id);
    this.bumpGeneration();
    return { outcome: 'done', name };
  }

  /** Hides the partition at once (state deleting); purgeStep then removes its rows. */
  beginDelete(name: string): PartitionChange {
    const partition = this.visible(name);
    if (!partition) return { outcome: 'not_found', name };
    if (partition.state === 'hot') return { outcome: 'hot', name };
    if (partition.state === 'warm') this.count(partition, -1);
    this.db.prepare("UPDATE event_partitions SET state = 'deleting' WHERE id = ?").run(partition.id);
    this.db.prepare('UPDATE event_storage SET process_row_floor = max(process_row_floor, (SELECT coalesce(max(id), 0) FROM processes))').run();
    this.bumpGeneration();
    return { outcome: 'done', name };
  }

  /**
   * Removes a bounded part of the oldest partition being deleted: segments with their events,
   * hits and processes left without segments first, then the postings. Answers whether more
   * remains (of any partition being deleted).
   */
  purgeStep(): { more: boolean } {
    const partition = this.db.prepare(`${WITH_RANGE} WHERE p.state = 'deleting' ORDER BY p.first_row LIMIT 1`).get() as PartitionRow | undefined;
    if (!partition) return { more: false };
    const last = partition.last_row!;
    const segments = this.db.prepare('SELECT id, process_id FROM segments WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?')
      .raw().all(partition.first_row, last, SEGMENTS_PER_STEP) as [number, number][];
    if (segments.length > 0) {
      this.deleteSegments(segments[0]![0], segments.at(-1)![0], [...new Set(segments.map(([, process]) => process))]);
      return { more: true };
    }
    const fromTerm = this.purgedTerms.get(partition.id) ?? 0;
    const toTerm = this.db.prepare('SELECT max(id) FROM (SELECT id FROM event_terms WHERE id > ? ORDER BY id LIMIT ?)')
      .pluck().get(fromTerm, TERMS_PER_STEP) as number | null;
    if (toTerm !== null) {
      const postings = [fromTerm, toTerm, partition.first_row, last];
      this.db.prepare(
        `INSERT INTO term_segment_counts (term_id, segments)
         SELECT term_id, -count(*) FROM event_postings WHERE term_id > ? AND term_id <= ? AND segment_row BETWEEN ? AND ? GROUP BY term_id
         ON CONFLICT (term_id) DO UPDATE SET segments = segments + excluded.segments`,
      ).run(...postings);
      this.db.prepare('DELETE FROM term_segment_counts WHERE term_id > ? AND term_id <= ? AND segments <= 0').run(fromTerm, toTerm);
      this.db.prepare('DELETE FROM event_postings WHERE term_id IN (SELECT id FROM event_terms WHERE id > ? AND id <= ?) AND segment_row BETWEEN ? AND ?')
        .run(...postings);
      // Command-line words are posted per process: they go with the processes the deletion removed.
      this.db.prepare(`DELETE FROM process_postings WHERE term_id IN (SELECT id FROM event_terms WHERE id > ? AND id <= ? AND field = 'cmdline')
        AND NOT EXISTS (SELECT 1 FROM processes WHERE id = process_row)`).run(fromTerm, toTerm);
      this.purgedTerms.set(partition.id, toTerm);
      return { more: true };
    }
    this.purgedTerms.delete(partition.id);
    this.db.prepare("UPDATE event_partitions SET state = 'deleted' WHERE id = ?").run(partition.id);
    removeChunkFile(this.db.name, partition.id);
    return { more: this.db.prepare("SELECT 1 FROM event_partitions WHERE state = 'deleting'").get() !== undefined };
  }

  /** Gives free pages back to the file system when the file allows it (auto_vacuum incremental); answers whether more remain. */
  vacuumStep(): { more: boolean } {
    if (this.db.pragma('auto_vacuum', { simple: true }) !== 2) return { more: false };
    this.db.pragma(`incremental_vacuum(${PAGES_PER_VACUUM_STEP})`);
    return { more: (this.db.pragma('freelist_count', { simple: true }) as number) > 0 };
  }

  private deleteSegments(from: number, to: number, processRows: number[]): void {
    this.db.prepare('DELETE FROM segment_events WHERE segment_row BETWEEN ? AND ?').run(from, to);
    this.db.prepare('DELETE FROM segment_chunks WHERE segment_row BETWEEN ? AND ?').run(from, to);
    this.db.prepare('DELETE FROM watchlist_process_hits WHERE segment_row BETWEEN ? AND ?').run(from, to);
    this.db.prepare('DELETE FROM feed_process_hits WHERE segment_row BETWEEN ? AND ?').run(from, to);
    this.db.prepare('DELETE FROM segments WHERE id BETWEEN ? AND ?').run(from, to);
    const removed = this.db.prepare(
      `DELETE FROM processes WHERE id IN (SELECT value FROM json_each(?))
       AND NOT EXISTS (SELECT 1 FROM segments s WHERE s.process_id = processes.id)`,
    ).run(JSON.stringify(processRows));
    // Their counts left process_segment_counts when the partition was hidden.
    if (removed.changes > 0) this.store.forgetRows();
    this.bumpGeneration();
  }

  /** Adds (sign 1) or subtracts (-1) the partition's segments to the per-process and per-host counts. */
  private count(partition: PartitionRow, sign: 1 | -1): void {
    const range = [sign, partition.first_row, partition.last_row ?? Number.MAX_SAFE_INTEGER];
    this.db.prepare(
      `INSERT INTO process_segment_counts (process_row, segments)
       SELECT process_id, ? * count(*) FROM segments WHERE id BETWEEN ? AND ? GROUP BY process_id
       ON CONFLICT (process_row) DO UPDATE SET segments = segments + excluded.segments`,
    ).run(...range);
    this.db.prepare('DELETE FROM process_segment_counts WHERE segments <= 0').run();
    this.db.prepare(
      `INSERT INTO host_segment_counts (sensor_id, group_id, hostname, host_type, os_type, segments)
       SELECT p.sensor_id, p.group_id, p.hostname, p.host_type, p.os_type, ? * count(*)
       FROM segments s JOIN processes p ON p.id = s.process_id WHERE s.id BETWEEN ? AND ? GROUP BY 1, 2, 3, 4, 5
       ON CONFLICT (sensor_id, group_id, hostname, host_type, os_type) DO UPDATE SET segments = segments + excluded.segments`,
    ).run(...range);
    this.db.prepare('DELETE FROM host_segment_counts WHERE segments <= 0').run();
  }

  private visible(name: string): PartitionRow | undefined {
    return this.db.prepare(`${WITH_RANGE} WHERE p.name = ? AND p.state IN ('hot', 'warm', 'cold')`).get(name) as PartitionRow | undefined;
  }

  /** The name, or the name with a suffix (which Carbon Black ignores) when a partition has it already. */
  private freeName(name: string): string {
    const taken = this.db.prepare("SELECT 1 FROM event_partitions WHERE name = ? AND state <> 'deleted'").pluck();
    let candidate = name;
    for (let n = 2; taken.get(candidate) !== undefined; n++) candidate = `${name}_${n}`;
    return candidate;
  }

  private bumpGeneration(): void {
    this.db.prepare('UPDATE event_storage SET generation = generation + 1').run();
  }
}
