/** The disk forecast's arithmetic, on partitions as the store lists them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PartitionRecord } from './partitions.store.js';
import { forecastStorage } from './storage-forecast.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-26T00:00:00Z');
const GIB = 1024 ** 3;

function partition(name: string, startMs: number, endMs: number | null, eventBytes: number): PartitionRecord {
  return { id: 1, name, state: endMs === null ? 'hot' : 'warm', firstRow: 0, startMs, endMs, userMounted: false, eventBytes, segmentCount: 1 };
}

describe('the storage forecast', () => {
  it('takes the pace of the last 30 days of partitions and divides the free space by it', () => {
    const partitions = [
      partition('cbevents_old', NOW - 90 * DAY, NOW - 40 * DAY, 500 * GIB),
      partition('cbevents_a', NOW - 10 * DAY, NOW - 5 * DAY, 5 * GIB),
      partition('writer', NOW - 5 * DAY, null, 5 * GIB),
    ];
    const forecast = forecastStorage(partitions, { totalBytes: 100 * GIB, availableBytes: 19 * GIB }, GIB, NOW);
    assert.deepEqual(forecast, {
      bytesPerDay: GIB, sampleStartMs: NOW - 10 * DAY, sampleDays: 10, diskTotalBytes: 100 * GIB, diskFreeBytes: 20 * GIB,
      daysUntilFull: 20, reason: null,
    });
  });

  it('gives no pace for less than an hour of history', () => {
    const forecast = forecastStorage([partition('writer', NOW - 60_000, null, GIB)], { totalBytes: GIB, availableBytes: GIB }, 0, NOW);
    assert.equal(forecast.bytesPerDay, null);
    assert.equal(forecast.daysUntilFull, null);
    assert.match(forecast.reason!, /less than an hour/);
  });

  it('says the days are unknown when the disk cannot be seen, and that an idle store does not fill', () => {
    const writer = [partition('writer', NOW - 2 * DAY, null, 2 * GIB)];
    const unseen = forecastStorage(writer, { totalBytes: 0, availableBytes: 0 }, 0, NOW);
    assert.deepEqual([unseen.bytesPerDay, unseen.diskTotalBytes, unseen.diskFreeBytes, unseen.daysUntilFull], [GIB, null, null, null]);
    assert.match(unseen.reason!, /not visible/);
    const idle = forecastStorage([partition('writer', NOW - 2 * DAY, null, 0)], { totalBytes: GIB, availableBytes: GIB }, 0, NOW);
    assert.deepEqual([idle.bytesPerDay, idle.daysUntilFull], [0, null]);
    assert.match(idle.reason!, /not filling/);
  });
});
