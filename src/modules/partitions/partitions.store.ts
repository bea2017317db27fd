/**
 * Event storage partitions (docs/adr/0009-partitions.md). Reading them is a small query on the
 * main connection; changing them is the event writer's work (PartitionWriter), ordered with the
 * ingest commits. partitions.store.contract.ts is the contract.
 */
import type { SqlDatabase } from '../../db/database.js';

export type PartitionState = 'hot' | 'warm' | 'cold';

export interface PartitionRecord {
  id: number;
  name: string;
  state: PartitionState;
  /** Its first segment row; it ends before the next partition's. */
  firstRow: number;
  startMs: number;
  /** When it stopped taking events; null for the hot partition. */
  endMs: number | null;
  /** Mounted by an administrator (rather than warm since its rollover). */
  userMounted: boolean;
  /** Event data written into it. */
  eventBytes: number;
  /** Segments (search documents) written into it. */
  segmentCount: number;
}

/** What a change did: `hot` when it may not apply to the hot partition, `not_found` for an unknown name. */
export interface PartitionChange {
  outcome: 'done' | 'not_found' | 'hot';
  name: string;
}

export type PartitionRequest =
  | { op: 'rollover'; nowMs: number }
  | { op: 'mount'; name: string; mounted: boolean }
  | { op: 'delete'; name: string }
  | { op: 'purge' }
  | { op: 'vacuum' };

export type PartitionReply = PartitionChange | { more: boolean };

export interface PartitionWriter {
  /**
   * rollover: the hot partition becomes warm (named cbevents_<its start>), a new hot one begins.
   * mount: warm (mounted true) or cold; the hot partition cannot be unmounted.
   * delete: hidden at once, its rows removed by later purge requests; not the hot partition.
   * purge: removes a bounded part of the partitions being deleted; answers whether more remains.
   * vacuum: returns a bounded number of free pages to the file system; answers whether more remain.
   */
  partition(request: PartitionRequest): Promise<PartitionReply>;
}

export interface StorageUsage {
  /** Bytes of the database file in use (free pages left out: SQLite reuses them). */
  usedBytes: number;
  /** Free pages inside the file, reusable by new data. */
  freeBytes: number;
}

export interface PartitionsStore {
  /** The partitions that exist (not deleted nor being deleted), oldest first. */
  list(): Promise<PartitionRecord[]>;
  /** Whether some partition is still being deleted. */
  deleting(): Promise<boolean>;
  usage(): Promise<StorageUsage>;
}

interface PartitionRow {
  id: number;
  name: string;
  state: PartitionState;
  first_row: number;
  start_ms: number;
  end_ms: number | null;
  user_mounted: number;
  event_bytes: number;
  segment_count: number;
}

export class SqlPartitionsStore implements PartitionsStore {
  constructor(private readonly db: SqlDatabase) {}

  async list(): Promise<PartitionRecord[]> {
    const rows = await this.db.all<PartitionRow>(
      "SELECT * FROM event_partitions WHERE state IN ('hot', 'warm', 'cold') ORDER BY first_row",
    );
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      state: row.state,
      firstRow: row.first_row,
      startMs: row.start_ms,
      endMs: row.end_ms,
      userMounted: row.user_mounted === 1,
      eventBytes: row.event_bytes,
      segmentCount: row.segment_count,
    }));
  }

  async deleting(): Promise<boolean> {
    return (await this.db.get("SELECT 1 AS found FROM event_partitions WHERE state = 'deleting' LIMIT 1")) !== undefined;
  }

  async usage(): Promise<StorageUsage> {
    const row = await this.db.get<{ page_count: number; freelist_count: number; page_size: number }>(
      'SELECT * FROM pragma_page_count(), pragma_freelist_count(), pragma_page_size()',
    );
    const { page_count: pages, freelist_count: free, page_size: size } = row!;
    return { usedBytes: (pages - free) * size, freeBytes: free * size };
  }
}
