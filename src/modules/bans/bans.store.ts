/**
 * Hash bans, their audit trail and block counts, the ban list's version, and which version each
 * sensor holds. Written once against SqlDatabase; bans.store.contract.ts is the contract every
 * dialect must pass. MD5s are stored lowercase; callers pass them so.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';

/** Who changed a ban, and when (server clock, epoch ms). */
export interface BanStamp {
  userId: number;
  username: string;
  atMs: number;
}

/** One change of a ban: the text and state it left. */
export interface BanAuditEntry extends BanStamp {
  text: string;
  enabled: boolean;
}

export interface BanRecord {
  md5: string;
  text: string;
  enabled: boolean;
  /** The ban's creator and creation time. */
  created: BanStamp;
  blockCount: number;
  /** The latest block reported (sensor clock, epoch ms), and where. */
  lastBlockMs: number | null;
  lastBlockSensorId: number | null;
  lastBlockHostname: string | null;
  /** Oldest first. */
  audit: BanAuditEntry[];
}

export interface BanChanges {
  text?: string | undefined;
  enabled?: boolean | undefined;
}

export const BAN_SORT_COLUMNS = ['timestamp', 'md5hash', 'text', 'enabled', 'username', 'block_count', 'last_block_time'] as const;
export type BanSortColumn = (typeof BAN_SORT_COLUMNS)[number];

export interface BanQuery {
  md5?: string | undefined;
  enabled?: boolean | undefined;
  sort: BanSortColumn;
  ascending: boolean;
  start: number;
  count: number;
}

/** The processblock events one upload reported for one md5. */
export interface BlockTally {
  md5: string;
  count: number;
  lastMs: number;
  sensorId: number;
  hostname: string;
}

/** The ban list at `version`, measured against an older version a sensor holds. */
export interface BanListState {
  version: number;
  /** Bans enabled now. */
  enabled: number;
  /** Bans whose enabled state changed after the older version. */
  changed: number;
}

export interface SensorBanList {
  /** The version the sensor acknowledged holding; 0 when it holds no bans. */
  ackedVersion: number;
  /** The ban_list instruction sent and not yet acknowledged, and the version it brings. */
  pending?: { instructionId: number; version: number } | undefined;
}

export interface BansStore {
  /** Adds a ban, audited; false (nothing written) when the md5 already has one, enabled or not. */
  create(md5: string, fields: { text: string; enabled: boolean }, stamp: BanStamp): Promise<boolean>;
  /**
   * Applies the changes, audited; a change of `enabled` gives the ban a new list version. False
   * (nothing written) when there is no such ban, or when `whenEnabled` is given and the ban's
   * enabled state is not that.
   */
  change(md5: string, changes: BanChanges, stamp: BanStamp, whenEnabled?: boolean): Promise<boolean>;
  get(md5: string): Promise<BanRecord | undefined>;
  list(query: BanQuery): Promise<BanRecord[]>;
  /** Adds the blocks to their bans' counts; the latest block wins the last_block fields. Unbanned md5s are ignored. */
  recordBlocks(tallies: readonly BlockTally[]): Promise<void>;
  listVersion(): Promise<number>;
  listState(sinceVersion: number): Promise<BanListState>;
  /** The enabled md5s, and the version they make up. */
  enabledBans(): Promise<{ version: number; md5s: string[] }>;
  /** Each md5 whose enabled state changed after `sinceVersion`, with its state now, and the version now. */
  changesSince(sinceVersion: number): Promise<{ version: number; changes: { md5: string; enabled: boolean }[] }>;
  sensorBanList(sensorId: number): Promise<SensorBanList>;
  saveSensorBanList(sensorId: number, state: SensorBanList): Promise<void>;
}

interface BanRow {
  md5: string;
  text: string;
  enabled: number | boolean;
  user_id: number;
  username: string;
  created_ms: number;
  block_count: number;
  last_block_ms: number | null;
  last_block_sensor_id: number | null;
  last_block_hostname: string | null;
}

interface AuditRow {
  md5: string;
  user_id: number;
  username: string;
  at_ms: number;
  text: string;
  enabled: number | boolean;
}

const SORT_SQL: Record<BanSortColumn, string> = {
  timestamp: 'created_ms',
  md5hash: 'md5',
  text: 'text',
  enabled: 'enabled',
  username: 'username',
  block_count: 'block_count',
  last_block_time: 'last_block_ms',
};

/** Audit rows are fetched for this many bans per query, well under any dialect's parameter limit. */
const AUDIT_CHUNK = 500;

export class SqlBansStore implements BansStore {
  constructor(private readonly db: SqlDatabase) {}

  create(md5: string, fields: { text: string; enabled: boolean }, stamp: BanStamp): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if (await tx.get('SELECT md5 FROM bans WHERE md5 = ?', [md5])) return false;
      // A ban created disabled was never on the list: no sensor has anything to hear about it.
      const version = fields.enabled ? await nextListVersion(tx) : 0;
      await tx.run(
        `INSERT INTO bans (md5, text, enabled, user_id, username, created_ms, list_version) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [md5, fields.text, fields.enabled, stamp.userId, stamp.username, stamp.atMs, version],
      );
      await audit(tx, md5, stamp, fields.text, fields.enabled);
      return true;
    });
  }

  change(md5: string, changes: BanChanges, stamp: BanStamp, whenEnabled?: boolean): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const row = await tx.get<{ text: string; enabled: number | boolean }>('SELECT text, enabled FROM bans WHERE md5 = ?', [md5]);
      if (!row || (whenEnabled !== undefined && Boolean(row.enabled) !== whenEnabled)) return false;
      const text = changes.text ?? row.text;
      const enabled = changes.enabled ?? Boolean(row.enabled);
      if (enabled !== Boolean(row.enabled)) {
        await tx.run('UPDATE bans SET enabled = ?, list_version = ? WHERE md5 = ?', [enabled, await nextListVersion(tx), md5]);
      }
      await tx.run('UPDATE bans SET text = ? WHERE md5 = ?', [text, md5]);
      await audit(tx, md5, stamp, text, enabled);
      return true;
    });
  }

  async get(md5: string): Promise<BanRecord | undefined> {
    const row = await this.db.get<BanRow>('SELECT * FROM bans WHERE md5 = ?', [md5]);
    return row && (await this.withAudits([row]))[0];
  }

  async list(query: BanQuery): Promise<BanRecord[]> {
    const where: string[] = [];
    const params: (string | number | boolean)[] = [];
    if (query.md5 !== undefined) {
      where.push('md5 = ?');
      params.push(query.md5);
    }
    if (query.enabled !== undefined) {
      where.push('enabled = ?');
      params.push(query.enabled);
    }
    const direction = query.ascending ? 'ASC' : 'DESC';
    const rows = await this.db.all<BanRow>(
      `SELECT * FROM bans ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY ${SORT_SQL[query.sort]} ${direction}, md5 ${direction} LIMIT ? OFFSET ?`,
      [...params, query.count, query.start],
    );
    return this.withAudits(rows);
  }

  async recordBlocks(tallies: readonly BlockTally[]): Promise<void> {
    if (tallies.length === 0) return;
    await this.db.transaction(async (tx) => {
      for (const { md5, count, lastMs, sensorId, hostname } of tallies) {
        // Every right-hand side reads the row as it was, so `latest` compares with the old time.
        const latest = 'last_block_ms IS NULL OR ? >= last_block_ms';
        await tx.run(
          `UPDATE bans SET block_count = block_count + ?,
             last_block_sensor_id = CASE WHEN ${latest} THEN ? ELSE last_block_sensor_id END,
             last_block_hostname = CASE WHEN ${latest} THEN ? ELSE last_block_hostname END,
             last_block_ms = CASE WHEN ${latest} THEN ? ELSE last_block_ms END
           WHERE md5 = ?`,
          [count, lastMs, sensorId, lastMs, hostname, lastMs, lastMs, md5],
        );
      }
    });
  }

  listVersion(): Promise<number> {
    return currentListVersion(this.db);
  }

  listState(sinceVersion: number): Promise<BanListState> {
    return this.db.transaction(async (tx) => {
      const counts = await tx.get<{ enabled: number | null; changed: number | null }>(
        `SELECT SUM(CASE WHEN enabled = 1 THEN 1 ELSE 0 END) AS enabled, SUM(CASE WHEN list_version > ? THEN 1 ELSE 0 END) AS changed FROM bans`,
        [sinceVersion],
      );
      return { version: await currentListVersion(tx), enabled: Number(counts?.enabled ?? 0), changed: Number(counts?.changed ?? 0) };
    });
  }

  enabledBans(): Promise<{ version: number; md5s: string[] }> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.all<{ md5: string }>('SELECT md5 FROM bans WHERE enabled = ? ORDER BY md5', [true]);
      return { version: await currentListVersion(tx), md5s: rows.map((row) => row.md5) };
    });
  }

  changesSince(sinceVersion: number): Promise<{ version: number; changes: { md5: string; enabled: boolean }[] }> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.all<{ md5: string; enabled: number | boolean }>(
        'SELECT md5, enabled FROM bans WHERE list_version > ? ORDER BY list_version, md5',
        [sinceVersion],
      );
      return { version: await currentListVersion(tx), changes: rows.map((row) => ({ md5: row.md5, enabled: Boolean(row.enabled) })) };
    });
  }

  async sensorBanList(sensorId: number): Promise<SensorBanList> {
    const row = await this.db.get<{ acked_version: number; pending_instruction_id: number | null; pending_version: number | null }>(
      'SELECT acked_version, pending_instruction_id, pending_version FROM sensor_ban_lists WHERE sensor_id = ?',
      [sensorId],
    );
    if (!row) return { ackedVersion: 0 };
    return {
      ackedVersion: row.acked_version,
      pending: row.pending_instruction_id === null ? undefined : { instructionId: row.pending_instruction_id, version: row.pending_version! },
    };
  }

  async saveSensorBanList(sensorId: number, state: SensorBanList): Promise<void> {
    await this.db.run(
      `INSERT INTO sensor_ban_lists (sensor_id, acked_version, pending_instruction_id, pending_version) VALUES (?, ?, ?, ?)
       ON CONFLICT (sensor_id) DO UPDATE SET acked_version = excluded.acked_version,
         pending_instruction_id = excluded.pending_instruction_id, pending_version = excluded.pending_version`,
      [sensorId, state.ackedVersion, state.pending?.instructionId ?? null, state.pending?.version ?? null],
    );
  }

  private async withAudits(rows: readonly BanRow[]): Promise<BanRecord[]> {
    const audits = new Map<string, BanAuditEntry[]>(rows.map((row) => [row.md5, []]));
    for (let i = 0; i < rows.length; i += AUDIT_CHUNK) {
      const md5s = rows.slice(i, i + AUDIT_CHUNK).map((row) => row.md5);
      const entries = await this.db.all<AuditRow>(
        `SELECT md5, user_id, username, at_ms, text, enabled FROM ban_audit WHERE md5 IN (${md5s.map(() => '?').join(', ')}) ORDER BY id`,
        md5s,
      );
      for (const entry of entries) {
        audits.get(entry.md5)!.push({
          userId: entry.user_id, username: entry.username, atMs: entry.at_ms, text: entry.text, enabled: Boolean(entry.enabled),
        });
      }
    }
    return rows.map((row) => ({
      md5: row.md5,
      text: row.text,
      enabled: Boolean(row.enabled),
      created: { userId: row.user_id, username: row.username, atMs: row.created_ms },
      blockCount: row.block_count,
      lastBlockMs: row.last_block_ms,
      lastBlockSensorId: row.last_block_sensor_id,
      lastBlockHostname: row.last_block_hostname,
      audit: audits.get(row.md5)!,
    }));
  }
}

async function currentListVersion(tx: SqlExecutor): Promise<number> {
  return (await tx.get<{ version: number }>('SELECT version FROM ban_list_version WHERE id = 1'))!.version;
}

/** Bumps the list version; the row stays locked until the transaction ends, so versions commit in order. */
async function nextListVersion(tx: SqlExecutor): Promise<number> {
  return (await tx.get<{ version: number }>('UPDATE ban_list_version SET version = version + 1 WHERE id = 1 RETURNING version'))!.version;
}

async function audit(tx: SqlExecutor, md5: string, stamp: BanStamp, text: string, enabled: boolean): Promise<void> {
  await tx.run(
    'INSERT INTO ban_audit (md5, user_id, username, at_ms, text, enabled) VALUES (?, ?, ?, ?, ?, ?)',
    [md5, stamp.userId, stamp.username, stamp.atMs, text, enabled],
  );
}
