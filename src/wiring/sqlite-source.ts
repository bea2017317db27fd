/**
 * An embedded installation opened as the source of `vigil migrate-store`: its SQLite file, held
 * under an exclusive lock for the whole move, and its event chunks (chunk files, ADR 0011).
 *
 * In WAL mode every open connection holds a shared lock on the file, so the exclusive lock is
 * refused while a Vigil server (or any command) has the store open: the move never copies a store
 * that is still changing, and no server can open it until the move is over.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../config/load.js';
import { SQLITE_FILE } from '../db/open.js';
import { sqliteMigrations } from '../db/migrations/sqlite.js';
import { readSegmentChunks } from '../modules/processes/chunk-files.sqlite.js';

export type SourceValue = string | number | bigint | Buffer | null;

export class SqliteSource {
  readonly file: string;
  private readonly connection: Database.Database;

  constructor(readonly dataDir: string) {
    this.file = join(dataDir, SQLITE_FILE);
    if (!existsSync(this.file)) throw new ConfigError(`There is no embedded store in ${dataDir} (no ${SQLITE_FILE}).`);
    this.connection = new Database(this.file, { fileMustExist: true, timeout: 0 });
    try {
      this.lockExclusively();
      this.checkReady();
    } catch (error) {
      this.connection.close();
      throw error;
    }
  }

  private lockExclusively(): void {
    this.connection.pragma('locking_mode = EXCLUSIVE');
    try {
      // In exclusive locking mode the lock taken here is kept after the transaction ends.
      this.connection.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      throw new ConfigError(`The embedded store ${this.file} is in use: stop the Vigil server (and any vigil command) using ${this.dataDir} first.`);
    }
  }

  /** The move copies this build's schema: an older store is migrated first, by the command that owns it. */
  private checkReady(): void {
    const newest = sqliteMigrations.at(-1)!.version;
    const { version } = this.connection.prepare('SELECT max(version) AS version FROM schema_migrations').get() as { version: number | null };
    if (version !== newest) {
      throw new ConfigError(`The embedded store ${this.file} is at schema version ${version ?? 0}, not ${newest}: run vigil migrate --data-dir ${this.dataDir} first.`);
    }
    // Left by a store that no server has opened since the codes were sealed (seal-plaintext.sqlite.ts drops it).
    const plain = this.tables().includes('sensor_install_codes_plaintext')
      && (this.connection.prepare('SELECT count(*) AS n FROM sensor_install_codes_plaintext').get() as { n: number }).n > 0;
    if (plain) throw new ConfigError(`The embedded store ${this.file} still holds install codes in plain text: start vigil serve on it once to seal them.`);
  }

  tables(): string[] {
    return (this.connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
  }

  columns(table: string): string[] {
    return (this.connection.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  }

  /** Rows as arrays, integers exact (as bigint), read one at a time. */
  rows(sql: string, params: readonly SourceValue[] = []): IterableIterator<SourceValue[]> {
    return this.connection.prepare(sql).raw().safeIntegers().iterate(...params) as IterableIterator<SourceValue[]>;
  }

  all<T>(sql: string, params: readonly SourceValue[] = []): T[] {
    return this.connection.prepare(sql).all(...params) as T[];
  }

  /** Each segment row's stored chunks, in chunk order (a chunk lost to its file is left out, as reads do). */
  chunks(segmentRows: readonly number[]): (string | Buffer)[][] {
    return readSegmentChunks(this.connection, segmentRows);
  }

  close(): void {
    this.connection.close();
  }
}
