/**
 * Feeds: where each comes from, how to fetch it, what its feedinfo said, and (through
 * syncReports) its reports. Written once against SqlDatabase; feeds.store.contract.ts is its
 * contract. A feed's short name is fixed when it is added: searches (alliance_score_<name>) and
 * tags refer to it. The password and client key are sealed under the secret key
 * (docs/adr/0015-secrets-at-rest.md); the store hands them out opened.
 */
import type { SqlDatabase, SqlValue } from '../../db/database.js';
import { UniqueViolation } from '../../db/errors.js';
import type { SecretBox, SecretPurpose } from '../../db/secrets/secret-box.js';
import { ConflictError } from '../../domain/errors.js';
import { textTokens } from '../../query/index.js';
import { syncReports, type SyncCounts } from '../threat-reports/threat-reports.store.js';
import type { FeedInfo, ParsedFeed } from './cbfeed.js';

/** What an analyst sets. */
export interface FeedSettings {
  feedUrl: string;
  enabled: boolean;
  useProxy: boolean | null;
  validateServerCert: boolean | null;
  username: string | null;
  password: string | null;
  sslClientCrt: string | null;
  sslClientKey: string | null;
  localRating: number | null;
  order: number | null;
}

export interface FeedRecord extends FeedSettings {
  id: number;
  info: FeedInfo;
  manuallyAdded: boolean;
  createdMs: number;
  syncedMs: number | null;
}

export interface FeedsStore {
  /** Adds a feed with its reports; ConflictError when a feed of that name (any case) exists. */
  create(settings: FeedSettings, download: ParsedFeed, atMs: number): Promise<{ feed: FeedRecord; counts: SyncCounts }>;
  get(id: number): Promise<FeedRecord | undefined>;
  /** Every feed, by id. */
  list(): Promise<FeedRecord[]>;
  update(id: number, changes: Partial<FeedSettings>): Promise<FeedRecord | undefined>;
  /** Removes the feed with its reports, actions and tags (its alerts stay); false when absent. */
  delete(id: number): Promise<boolean>;
  /** Stores a new download of the feed: its feedinfo (the name excepted) and reports; undefined when absent. */
  sync(id: number, download: ParsedFeed, full: boolean, atMs: number): Promise<SyncCounts | undefined>;
}

interface FeedRow {
  id: number;
  name: string;
  display_name: string;
  feed_url: string;
  summary: string;
  tech_data: string;
  provider_url: string;
  icon: string;
  icon_small: string;
  category: string | null;
  provider_rating: number | null;
  local_rating: number | null;
  enabled: number | boolean;
  use_proxy: number | boolean | null;
  validate_server_cert: number | boolean | null;
  username: string | null;
  password: string | null;
  ssl_client_crt: string | null;
  ssl_client_key: string | null;
  manually_added: number | boolean;
  display_order: number | null;
  created_ms: number;
  synced_ms: number | null;
}

const SETTING_COLUMNS: Record<keyof FeedSettings, string> = {
  feedUrl: 'feed_url',
  enabled: 'enabled',
  useProxy: 'use_proxy',
  validateServerCert: 'validate_server_cert',
  username: 'username',
  password: 'password',
  sslClientCrt: 'ssl_client_crt',
  sslClientKey: 'ssl_client_key',
  localRating: 'local_rating',
  order: 'display_order',
};

/** The settings kept sealed, and what each is sealed as. */
const SEALED_SETTINGS: Partial<Record<keyof FeedSettings, SecretPurpose>> = { password: 'feed-password', sslClientKey: 'feed-client-key' };

/** feedinfo, the name excepted, as columns and values. */
function infoColumns(info: FeedInfo): [string, SqlValue][] {
  return [
    ['display_name', info.display_name], ['summary', info.summary], ['tech_data', info.tech_data], ['provider_url', info.provider_url],
    ['icon', info.icon], ['icon_small', info.icon_small], ['category', info.category],
    ['category_tokens', JSON.stringify(textTokens(info.category ?? ''))], ['provider_rating', info.provider_rating],
  ];
}

export class SqlFeedsStore implements FeedsStore {
  constructor(private readonly db: SqlDatabase, private readonly secrets: SecretBox) {}

  async create(settings: FeedSettings, download: ParsedFeed, atMs: number): Promise<{ feed: FeedRecord; counts: SyncCounts }> {
    const settingNames = Object.keys(SETTING_COLUMNS) as (keyof FeedSettings)[];
    const columns: [string, SqlValue][] = [
      ['name', download.feedinfo.name], ...infoColumns(download.feedinfo),
      ...settingNames.map((name): [string, SqlValue] => [SETTING_COLUMNS[name], this.stored(name, settings[name])]),
      ['secrets_sealed', true], ['manually_added', true], ['created_ms', atMs], ['synced_ms', atMs],
    ];
    try {
      return await this.db.transaction(async (tx) => {
        const row = await tx.get<FeedRow>(
          `INSERT INTO feeds (${columns.map(([c]) => c).join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) RETURNING *`,
          columns.map(([, value]) => value),
        );
        const counts = await syncReports(tx, row!.id, download.reports, true, atMs);
        return { feed: this.toRecord(row!), counts };
      });
    } catch (error) {
      if (error instanceof UniqueViolation) throw new ConflictError(`A feed named "${download.feedinfo.name}" already exists`);
      throw error;
    }
  }

  async get(id: number): Promise<FeedRecord | undefined> {
    const row = await this.db.get<FeedRow>('SELECT * FROM feeds WHERE id = ?', [id]);
    return row && this.toRecord(row);
  }

  async list(): Promise<FeedRecord[]> {
    return (await this.db.all<FeedRow>('SELECT * FROM feeds ORDER BY id')).map((row) => this.toRecord(row));
  }

  async update(id: number, changes: Partial<FeedSettings>): Promise<FeedRecord | undefined> {
    const given = (Object.keys(SETTING_COLUMNS) as (keyof FeedSettings)[]).filter((name) => changes[name] !== undefined);
    if (given.length === 0) return this.get(id);
    const row = await this.db.get<FeedRow>(
      `UPDATE feeds SET ${given.map((name) => `${SETTING_COLUMNS[name]} = ?`).join(', ')} WHERE id = ? RETURNING *`,
      [...given.map((name) => this.stored(name, changes[name] ?? null)), id],
    );
    return row && this.toRecord(row);
  }

  async delete(id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM feeds WHERE id = ?', [id])).changes > 0;
  }

  sync(id: number, download: ParsedFeed, full: boolean, atMs: number): Promise<SyncCounts | undefined> {
    return this.db.transaction(async (tx) => {
      const info = [...infoColumns(download.feedinfo), ['synced_ms', atMs] as [string, SqlValue]];
      const updated = await tx.run(
        `UPDATE feeds SET ${info.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`, [...info.map(([, value]) => value), id],
      );
      if (updated.changes === 0) return undefined;
      return syncReports(tx, id, download.reports, full, atMs);
    });
  }

  /**
   * Seals the passwords and client keys that feeds added before migration 14 kept in plain text;
   * a no-op once done. The caller runs it with secure_delete on, so the plain values do not linger
   * in freed space.
   */
  async sealPlaintext(): Promise<number> {
    // Read first: once everything is sealed, a start (or `vigil token`) takes no write lock here.
    // The transaction reads again, so a concurrent start never seals a value twice.
    if (!(await this.db.get('SELECT 1 AS plain FROM feeds WHERE secrets_sealed = 0 LIMIT 1'))) return 0;
    return this.db.transaction(async (tx) => {
      const rows = await tx.all<Pick<FeedRow, 'id' | 'password' | 'ssl_client_key'>>(
        'SELECT id, password, ssl_client_key FROM feeds WHERE secrets_sealed = 0',
      );
      for (const row of rows) {
        await tx.run('UPDATE feeds SET password = ?, ssl_client_key = ?, secrets_sealed = 1 WHERE id = ?', [
          this.stored('password', row.password), this.stored('sslClientKey', row.ssl_client_key), row.id,
        ]);
      }
      return rows.length;
    });
  }

  /** A setting's value as the table keeps it: sealed when it is a secret. */
  private stored(name: keyof FeedSettings, value: FeedSettings[keyof FeedSettings]): SqlValue {
    const purpose = SEALED_SETTINGS[name];
    return purpose && typeof value === 'string' ? this.secrets.seal(value, purpose) : value;
  }

  private opened(sealed: string | null, purpose: SecretPurpose): string | null {
    return sealed === null ? null : this.secrets.open(sealed, purpose);
  }

  private toRecord(row: FeedRow): FeedRecord {
    return {
      ...recordOf(row),
      password: this.opened(row.password, 'feed-password'),
      sslClientKey: this.opened(row.ssl_client_key, 'feed-client-key'),
    };
  }
}

const nullableFlag = (value: number | boolean | null) => (value === null ? null : Boolean(value));

/** The record as stored, its secrets still sealed. */
function recordOf(row: FeedRow): FeedRecord {
  return {
    id: row.id,
    info: {
      name: row.name,
      display_name: row.display_name,
      provider_url: row.provider_url,
      summary: row.summary,
      tech_data: row.tech_data,
      category: row.category,
      icon: row.icon,
      icon_small: row.icon_small,
      provider_rating: row.provider_rating,
    },
    feedUrl: row.feed_url,
    enabled: Boolean(row.enabled),
    useProxy: nullableFlag(row.use_proxy),
    validateServerCert: nullableFlag(row.validate_server_cert),
    username: row.username,
    password: row.password,
    sslClientCrt: row.ssl_client_crt,
    sslClientKey: row.ssl_client_key,
    localRating: row.local_rating,
    order: row.display_order,
    manuallyAdded: Boolean(row.manually_added),
    createdMs: row.created_ms,
    syncedMs: row.synced_ms,
  };
}
