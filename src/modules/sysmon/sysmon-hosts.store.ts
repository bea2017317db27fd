/**
 * Which sensor each Sysmon host became, and which batches were stored already. Written once
 * against SqlDatabase, as every store.
 */
import type { SqlDatabase } from '../../db/database.js';

export interface SysmonHostsStore {
  /** The sensor the host became in this group, if it has sent before. */
  sensorOf(groupId: number, hostName: string): Promise<number | undefined>;
  /** Records the host's sensor; false when the host had one already (another request was first). */
  link(groupId: number, hostName: string, sensorId: number): Promise<boolean>;
  /** Whether a batch with this digest was stored in the group. */
  batchStored(groupId: number, digest: string): Promise<boolean>;
  recordBatch(groupId: number, digest: string, storedMs: number): Promise<void>;
}

export class SqlSysmonHostsStore implements SysmonHostsStore {
  constructor(private readonly db: SqlDatabase) {}

  async sensorOf(groupId: number, hostName: string): Promise<number | undefined> {
    const row = await this.db.get<{ sensor_id: number }>('SELECT sensor_id FROM sysmon_hosts WHERE group_id = ? AND host_name = ?', [groupId, hostName]);
    return row?.sensor_id;
  }

  async link(groupId: number, hostName: string, sensorId: number): Promise<boolean> {
    const result = await this.db.run(
      'INSERT INTO sysmon_hosts (group_id, host_name, sensor_id) VALUES (?, ?, ?) ON CONFLICT (group_id, host_name) DO NOTHING',
      [groupId, hostName, sensorId],
    );
    return result.changes === 1;
  }

  async batchStored(groupId: number, digest: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS found FROM sysmon_batches WHERE group_id = ? AND digest = ?', [groupId, digest])) !== undefined;
  }

  async recordBatch(groupId: number, digest: string, storedMs: number): Promise<void> {
    await this.db.run('INSERT INTO sysmon_batches (group_id, digest, stored_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [groupId, digest, storedMs]);
  }
}
