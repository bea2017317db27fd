/**
 * Segments per process and per host (process_segment_counts, host_segment_counts: what a search
 * on process or host fields counts its documents from), added by the event writer once per commit
 * for the segments it opened in it, rather than by a trigger per segment insert (migration 11).
 */
import type Database from 'better-sqlite3';

/** The host columns of a process row, which host_segment_counts counts by. */
export type ProcessHost = readonly [sensorId: number, groupId: number, hostname: string, hostType: string, osType: string];

export class NewSegmentCounts {
  private readonly perProcess = new Map<number, number>();
  private readonly perHost = new Map<string, { host: ProcessHost; segments: number }>();
  private readonly addToProcess: Database.Statement;
  private readonly addToHost: Database.Statement;

  constructor(connection: Database.Database) {
    // One row per statement: a multi-row upsert would need a statement journal again.
    this.addToProcess = connection.prepare(
      `INSERT INTO process_segment_counts (process_row, segments) VALUES (?, ?)
       ON CONFLICT (process_row) DO UPDATE SET segments = segments + excluded.segments`,
    );
    this.addToHost = connection.prepare(
      `INSERT INTO host_segment_counts (sensor_id, group_id, hostname, host_type, os_type, segments) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (sensor_id, group_id, hostname, host_type, os_type) DO UPDATE SET segments = segments + excluded.segments`,
    );
  }

  add(processRow: number, host: ProcessHost): void {
    this.perProcess.set(processRow, (this.perProcess.get(processRow) ?? 0) + 1);
    const key = host.join('\u0000');
    const counted = this.perHost.get(key);
    if (counted) counted.segments++;
    else this.perHost.set(key, { host, segments: 1 });
  }

  /** Writes the counts gathered since the last write; call at the end of the transaction. */
  write(): void {
    for (const [processRow, segments] of this.perProcess) this.addToProcess.run(processRow, segments);
    for (const { host, segments } of this.perHost.values()) this.addToHost.run(...host, segments);
    this.clear();
  }

  /** Forgets what was gathered (the transaction rolled back). */
  clear(): void {
    this.perProcess.clear();
    this.perHost.clear();
  }
}
