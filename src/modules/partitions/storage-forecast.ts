/**
 * The disk forecast: how fast the event store grows and when the disk's free space runs out at
 * that pace. The pace is the event data (the partitions' sizeInBytes) written by the partitions
 * of the last FORECAST_WINDOW_DAYS, over the time since the oldest of them began. A figure the
 * server cannot know honestly is null, with the reason: too little history to measure, or a
 * disk this server cannot see (PostgreSQL on another machine).
 */
import type { DiskSpace } from './storage-maintenance.js';
import type { PartitionRecord } from './partitions.store.js';

export const FORECAST_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;
/** Less history than this gives a pace that says more about one burst than about the days ahead. */
const MIN_SAMPLE_MS = 3_600_000;

export interface StorageForecastFigures {
  bytesPerDay: number | null;
  sampleStartMs: number | null;
  sampleDays: number;
  diskTotalBytes: number | null;
  /** Free on the disk, plus what the database holds free for reuse. */
  diskFreeBytes: number | null;
  daysUntilFull: number | null;
  /** Why a figure is null, or why the disk does not fill; null when every figure is given. */
  reason: string | null;
}

/** `disk.totalBytes` 0 stands for a disk this server cannot see; `reusableBytes` is free space inside the database file. */
export function forecastStorage(partitions: readonly PartitionRecord[], disk: DiskSpace, reusableBytes: number, nowMs: number): StorageForecastFigures {
  const recent = partitions.filter((p) => p.endMs === null || p.endMs > nowMs - FORECAST_WINDOW_DAYS * DAY_MS);
  const sampleStartMs = recent.length === 0 ? null : Math.min(...recent.map((p) => p.startMs));
  const sampleMs = sampleStartMs === null ? 0 : Math.max(0, nowMs - sampleStartMs);
  const known = disk.totalBytes > 0;
  const diskFreeBytes = known ? disk.availableBytes + reusableBytes : null;
  const base = {
    sampleStartMs, sampleDays: round(sampleMs / DAY_MS), diskTotalBytes: known ? disk.totalBytes : null, diskFreeBytes,
  };
  if (sampleMs < MIN_SAMPLE_MS) {
    return { ...base, bytesPerDay: null, daysUntilFull: null, reason: 'less than an hour of events to measure the pace by' };
  }
  const bytesPerDay = Math.round(recent.reduce((sum, p) => sum + p.eventBytes, 0) / (sampleMs / DAY_MS));
  if (diskFreeBytes === null) {
    return { ...base, bytesPerDay, daysUntilFull: null, reason: 'the disk holding the database is not visible to this server' };
  }
  if (bytesPerDay === 0) return { ...base, bytesPerDay, daysUntilFull: null, reason: 'no events written lately: the disk is not filling' };
  return { ...base, bytesPerDay, daysUntilFull: round(diskFreeBytes / bytesPerDay), reason: null };
}

function round(days: number): number {
  return Math.round(days * 10) / 10;
}
