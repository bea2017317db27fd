/**
 * `vigil migrate-store`: copies an embedded installation (the SQLite file, its event chunk files,
 * binaries' and live-response files' content, the API token key) into a PostgreSQL database at
 * this build's schema, in one transaction: a move that fails leaves the target as it was.
 * Ids are kept (sequences are advanced past them), so tokens, process GUIDs, segment ids,
 * watchlist and alert ids read the same on the new store.
 *
 * Secrets stay sealed as they were: the target is opened with the same secret key file, and the
 * embedded store's token.key is sealed into sealed_keys under it (docs/adr/0020-shared-keys.md),
 * so every API token keeps working on servers given that file. Why it is done this way:
 * docs/adr/0026-moving-to-postgres.md.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { ConfigError } from '../config/load.js';
import type { Config } from '../config/schema.js';
import type { PostgresDatabase } from '../db/dialects/postgres.js';
import { BinaryCopyRows } from '../db/dialects/postgres-copy.js';
import { createKeyFile, readKeyFile } from '../db/key-file.js';
import { REBUILD_PROCESS_NAME_TALLY } from '../db/migrations/postgres/006-search-order.js';
import { openConfiguredDatabase } from '../db/open.js';
import { SecretBox, SecretUnreadableError } from '../db/secrets/secret-box.js';
import { openSecretBox, secretKeyPath } from '../db/secrets/secret-key.js';
import { BINARY_PIECE_BYTES } from '../modules/binaries/binary-content.postgres.js';
import { LIVE_RESPONSE_PIECE_BYTES } from '../modules/live-response/live-response-content.sql.js';
import { TOKEN_KEY_FILE } from '../modules/users/token-key.js';
import { copyTable, planTable } from './move-store.copy.js';
import { createPartitions, detachCold, moveChunks, PARTITION_TABLE_PATTERN } from './move-store.events.js';
import { SqliteSource } from './sqlite-source.js';

/** Filled by the event pass, or not the embedded store's to give. */
const NOT_COPIED = new Set([
  'schema_migrations', 'event_partitions', 'event_chunks', 'segment_terms', 'event_terms', 'binary_content', 'binary_content_pieces',
  'sealed_keys', 'process_name_segment_counts',
]);
/** Tables whose rows say the database is in use. */
const IN_USE = ['users', 'sensors', 'watchlists', 'feeds'];

export interface MoveOptions {
  force: boolean;
  progress: (line: string) => void;
}

export interface MoveSummary {
  /** Rows per table, in the order copied. */
  tables: [table: string, rows: number][];
  where: string;
}

/** `config` names the target (databaseUrl) and the secret key file; `from` is the embedded store's data dir. */
export async function moveStore(from: string, config: Config, options: MoveOptions): Promise<MoveSummary> {
  const source = new SqliteSource(from);
  try {
    const keyFile = secretKeyPath(from, config.secretKeyFile);
    const secrets = openSourceSecrets(source, keyFile);
    const { db, where } = await openConfiguredDatabase(config);
    try {
      const tables = await inOneTransaction(db as PostgresDatabase, (client) => copyAll(client, source, secrets, options));
      // The same check every server makes at start, now on the target.
      await openSecretBox(db, keyFile);
      return { tables, where };
    } finally {
      await db.close();
    }
  } finally {
    source.close();
  }
}

/** The secret key the source's secrets are sealed with (created, as a first start would, if it never sealed any). */
function openSourceSecrets(source: SqliteSource, keyFile: string): SecretBox {
  const [check] = source.all<{ sealed: string }>('SELECT sealed FROM secret_key_check WHERE id = 1');
  const key = readKeyFile(keyFile, 'secret key') ?? (check ? undefined : createKeyFile(keyFile, 'secret key'));
  if (!key) throw new ConfigError(`The secret key file ${keyFile} is missing, but the embedded store holds secrets sealed with it: point --secret-key-file at it.`);
  const box = new SecretBox(key);
  if (check) {
    let opened: string | undefined;
    try {
      opened = box.open(check.sealed, 'key-check');
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
    }
    if (opened === undefined) throw new ConfigError(`The secret key file ${keyFile} is not the key the embedded store's secrets were sealed with.`);
  }
  return box;
}

async function inOneTransaction<T>(db: PostgresDatabase, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function copyAll(client: pg.PoolClient, source: SqliteSource, secrets: SecretBox, options: MoveOptions): Promise<[string, number][]> {
  await refuseUnlessEmpty(client, options.force);
  const tables = await targetTables(client);
  await client.query(`TRUNCATE ${[...tables.keys()].filter((t) => t !== 'schema_migrations').join(', ')}`);
  const copied: [string, number][] = [];
  const partitions = await createPartitions(client, source);
  copied.push(['event_partitions', partitions.length]);
  options.progress('Copying the tables…');
  const present = new Set(source.tables());
  for (const [table, columns] of tables) {
    if (NOT_COPIED.has(table)) continue;
    if (!present.has(table)) throw new ConfigError(`The embedded store has no table ${table}: it is not at this build's schema.`);
    copied.push([table, await copyTable(client, source, planTable(source, table, columns))]);
  }
  options.progress('Moving the events…');
  const events = await moveChunks(client, source, options.progress);
  await detachCold(client, partitions);
  // Its triggers saw the per-process counts copied before the processes they name (tables go in name order).
  await client.query(REBUILD_PROCESS_NAME_TALLY);
  copied.push(['event_chunks', events.chunks], ['segment_terms', events.termSets], ['event_terms', events.dictionaryTerms]);
  copied.push(['binary_content (files)', await moveBinaryContent(client, source.dataDir)]);
  copied.push(['live_response_file_pieces (files)', await moveLiveResponseFiles(client, source)]);
  copied.push(['sealed_keys', await sealTokenKey(client, source.dataDir, secrets)]);
  await advanceSequences(client);
  return copied;
}

async function refuseUnlessEmpty(client: pg.PoolClient, force: boolean): Promise<void> {
  if (force) return;
  const counts = await client.query<Record<string, string>>(`SELECT ${IN_USE.map((t) => `(SELECT count(*) FROM ${t}) AS ${t}`).join(', ')}`);
  const used = Object.entries(counts.rows[0]!).filter(([, n]) => Number(n) > 0);
  if (used.length > 0) {
    throw new ConfigError(
      `The target database already holds data (${used.map(([t, n]) => `${n} ${t}`).join(', ')}). migrate-store fills an empty database; ` +
        'give --force to replace everything in this one.',
    );
  }
}

/** The target's tables (partitions left out) with their columns, parents before the tables whose foreign keys name them. */
async function targetTables(client: pg.PoolClient): Promise<Map<string, string[]>> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(
    `SELECT c.table_name, c.column_name FROM information_schema.columns c JOIN pg_class k ON k.relname = c.table_name
     WHERE c.table_schema = current_schema() AND k.relkind IN ('r', 'p') AND k.relpersistence = 'p' AND k.relname !~ $1
     ORDER BY c.table_name, c.ordinal_position`,
    [PARTITION_TABLE_PATTERN],
  );
  const columns = new Map<string, string[]>();
  for (const row of rows) columns.set(row.table_name, [...(columns.get(row.table_name) ?? []), row.column_name]);
  const { rows: references } = await client.query<{ child: string; parent: string }>(
    "SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint WHERE contype = 'f'",
  );
  const ordered = new Map<string, string[]>();
  const visit = (table: string, path: Set<string>) => {
    if (ordered.has(table) || path.has(table)) return;
    path.add(table);
    for (const r of references) if (r.child === table && r.parent !== table) visit(r.parent, path);
    ordered.set(table, columns.get(table)!);
  };
  for (const table of [...columns.keys()].sort()) visit(table, new Set());
  return ordered;
}

/** The embedded store's binaries, content-addressed files under binaries/ (binary-content.ts). */
async function moveBinaryContent(client: pg.PoolClient, dataDir: string): Promise<number> {
  const root = join(dataDir, 'binaries');
  let count = 0;
  for (const prefix of listDir(root)) {
    if (prefix === 'incoming') continue;
    for (const md5 of listDir(join(root, prefix))) {
      const content = readFileSync(join(root, prefix, md5));
      const pieces = new BinaryCopyRows('binary_content_pieces', [['md5', 'text'], ['piece', 'int4'], ['data', 'bytea']]);
      let piece = 0;
      do {
        pieces.add([md5, piece, content.subarray(piece * BINARY_PIECE_BYTES, (piece + 1) * BINARY_PIECE_BYTES)]);
        piece++;
      } while (piece * BINARY_PIECE_BYTES < content.length);
      await pieces.send(client);
      const complete = new BinaryCopyRows('binary_content', [['md5', 'text'], ['size', 'int8'], ['pieces', 'int4']]);
      complete.add([md5, content.length, piece]);
      await complete.send(client);
      count++;
    }
  }
  return count;
}

/** Live-response files kept under live-response/<file id>, in the pieces SqlLiveResponseContent reads. */
async function moveLiveResponseFiles(client: pg.PoolClient, source: SqliteSource): Promise<number> {
  const root = join(source.dataDir, 'live-response');
  const known = new Set(source.all<{ id: number }>('SELECT id FROM live_response_files WHERE size IS NOT NULL').map((f) => String(f.id)));
  let count = 0;
  for (const name of listDir(root)) {
    if (!known.has(name) || !statSync(join(root, name)).isFile()) continue;
    const content = readFileSync(join(root, name));
    const rows = new BinaryCopyRows('live_response_file_pieces', [['file_id', 'int8'], ['piece', 'int4'], ['data', 'bytea']]);
    let piece = 0;
    do {
      rows.add([Number(name), piece, content.subarray(piece * LIVE_RESPONSE_PIECE_BYTES, (piece + 1) * LIVE_RESPONSE_PIECE_BYTES)]);
      piece++;
    } while (piece * LIVE_RESPONSE_PIECE_BYTES < content.length);
    await rows.send(client);
    count += piece;
  }
  return count;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Sealed as loadOrCreateSharedTokenKey keeps it, so that tokens issued by the embedded server verify on PostgreSQL. */
async function sealTokenKey(client: pg.PoolClient, dataDir: string, secrets: SecretBox): Promise<number> {
  const key = readKeyFile(join(dataDir, TOKEN_KEY_FILE), 'API token key');
  if (!key) return 0;
  await client.query('INSERT INTO sealed_keys (name, sealed) VALUES ($1, $2)', ['token-key', secrets.seal(key.toString('hex'), 'token-key')]);
  return 1;
}

/** Every sequence past the ids copied; event row ids are handed out in blocks from the next one. */
async function advanceSequences(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ sequence: string; table_name: string; column_name: string }>(
    `SELECT s.oid::regclass::text AS sequence, t.relname AS table_name, a.attname AS column_name
     FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
     JOIN pg_class t ON t.oid = d.refobjid JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
     WHERE d.deptype IN ('a', 'i')`,
  );
  for (const { sequence, table_name, column_name } of rows) {
    await client.query(`SELECT setval('${sequence}', coalesce((SELECT max(${column_name}) FROM ${table_name}), 0) + 1, false)`);
  }
  await client.query(
    `SELECT setval('event_row_ids', greatest((SELECT coalesce(max(id), 0) FROM processes), (SELECT coalesce(max(id), 0) FROM segments)) + 1, false)`,
  );
}
