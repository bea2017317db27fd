/**
 * Ingest keys: the credential shippers present to send Sysmon events into one sensor group.
 * Only a keyed hash of each key is stored (as install codes, docs/adr/0015-secrets-at-rest.md), so
 * a key is shown once, when created, and a copy of the database holds none.
 */
import type { SqlDatabase } from '../../db/database.js';
import type { SecretBox } from '../../db/secrets/secret-box.js';
import type { IngestKeyIdentity } from '../../domain/ingest-key.js';

export interface IngestKeyRecord {
  id: number;
  groupId: number;
  name: string;
  createdBy: string;
  createdMs: number;
  revokedMs: number | null;
}

export interface IngestKeysStore {
  create(key: { groupId: number; name: string; secret: string; createdBy: string; createdMs: number }): Promise<IngestKeyRecord>;
  /** The group's keys, revoked ones included, oldest first. */
  list(groupId: number): Promise<IngestKeyRecord[]>;
  /** Marks the key revoked; false when the group has no such key or it was revoked already. */
  revoke(groupId: number, id: number, revokedMs: number): Promise<boolean>;
  /** The key's identity when it exists and is not revoked. */
  find(secret: string): Promise<IngestKeyIdentity | undefined>;
}

interface KeyRow {
  id: number;
  group_id: number;
  name: string;
  created_by: string;
  created_ms: number;
  revoked_ms: number | null;
}

const COLUMNS = 'id, group_id, name, created_by, created_ms, revoked_ms';

const toRecord = (row: KeyRow): IngestKeyRecord => ({
  id: row.id, groupId: row.group_id, name: row.name, createdBy: row.created_by, createdMs: row.created_ms, revokedMs: row.revoked_ms,
});

export class SqlIngestKeysStore implements IngestKeysStore {
  constructor(private readonly db: SqlDatabase, private readonly secrets: SecretBox) {}

  async create(key: { groupId: number; name: string; secret: string; createdBy: string; createdMs: number }): Promise<IngestKeyRecord> {
    const row = await this.db.get<KeyRow>(
      `INSERT INTO ingest_keys (group_id, name, key_lookup, created_by, created_ms) VALUES (?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      [key.groupId, key.name, this.secrets.lookupHash(key.secret, 'ingest-key'), key.createdBy, key.createdMs],
    );
    return toRecord(row!);
  }

  async list(groupId: number): Promise<IngestKeyRecord[]> {
    return (await this.db.all<KeyRow>(`SELECT ${COLUMNS} FROM ingest_keys WHERE group_id = ? ORDER BY id`, [groupId])).map(toRecord);
  }

  async revoke(groupId: number, id: number, revokedMs: number): Promise<boolean> {
    const result = await this.db.run(
      'UPDATE ingest_keys SET revoked_ms = ? WHERE id = ? AND group_id = ? AND revoked_ms IS NULL', [revokedMs, id, groupId],
    );
    return result.changes === 1;
  }

  async find(secret: string): Promise<IngestKeyIdentity | undefined> {
    const row = await this.db.get<{ id: number; group_id: number }>(
      'SELECT id, group_id FROM ingest_keys WHERE key_lookup = ? AND revoked_ms IS NULL', [this.secrets.lookupHash(secret, 'ingest-key')],
    );
    return row === undefined ? undefined : { keyId: row.id, groupId: row.group_id };
  }
}
