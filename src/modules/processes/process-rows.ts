/** Columns of the process and segment tables (src/db/migrations/sqlite.ts) as the stores read them. */
import type { COUNTED_TYPES } from '../../ingest/prepare.js';

/** What every read of a `processes` row carries. */
export interface ProcessColumns {
  sensor_id: number;
  pid: number;
  start_ms: number;
  hostname: string;
  host_type: string;
  os_type: string;
  path: string;
  process_name: string;
  cmdline: string;
  username: string;
  uid: string;
  md5: string;
  sha256: string;
  parent_pid: number;
  parent_start_ms: number | null;
  parent_name: string;
  parent_md5: string;
  end_ms: number | null;
}

/** A segment's per-type event counts (`filemod_count` … `processblock_count`). */
export type SegmentCounts = Record<`${(typeof COUNTED_TYPES)[number]}_count`, number>;
