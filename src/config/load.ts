/**
 * Builds the one Config object: defaults, then VIGIL_* environment variables, then explicit
 * overrides (command-line flags). Invalid settings stop the start with a message naming them.
 */
import { Value } from '@sinclair/typebox/value';
import { ConfigSchema, type Config } from './schema.js';

type Overrides = { [K in keyof Config]?: Config[K] | undefined };

/** Environment variable for each setting: dataDir → VIGIL_DATA_DIR. */
export function envName(key: string): string {
  return 'VIGIL_' + key.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase();
}

export class ConfigError extends Error {}

/** Settings of the PostgreSQL store, meaningless on the embedded one. */
const POSTGRES_ONLY = ['databasePoolSize', 'databaseStatementTimeoutMs', 'databaseVacuumSeconds'] as const;

/** Settings of the embedded store (its connections, search threads and write lock), meaningless on PostgreSQL. */
const EMBEDDED_ONLY = [
  'searchWorkers', 'searchThreadNice', 'searchCacheMb', 'searchHeapMb', 'searchMmapMb',
  'sqlitePageCacheMb', 'sqliteWalLimitMb', 'databaseLockWaitMs',
] as const;

export function loadConfig(overrides: Overrides = {}, env: Record<string, string | undefined> = {}): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const fromEnv = env[envName(key)];
    if (fromEnv !== undefined) raw[key] = fromEnv;
  }
  for (const [key, value] of Object.entries(overrides)) {
    if (value !== undefined) raw[key] = value;
  }
  // Before the defaults fill `raw` in.
  const given = new Set(Object.keys(raw));
  const withDefaults = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, raw));
  const problems = [...Value.Errors(ConfigSchema, withDefaults)];
  if (problems.length > 0) {
    const detail = problems.map((p) => `${p.path.slice(1) || '(config)'}: ${p.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${detail}`);
  }
  const config = withDefaults as Config;
  // The embedded store has no pool, no driver limit and nothing to vacuum: a PostgreSQL setting
  // given without PostgreSQL would be accepted and do nothing.
  const withoutPostgres = config.databaseUrl === undefined ? POSTGRES_ONLY.filter((key) => given.has(key)) : [];
  if (withoutPostgres.length > 0) {
    throw new ConfigError(`Invalid configuration: ${withoutPostgres.join(', ')} applies to PostgreSQL only and needs databaseUrl (--database-url)`);
  }
  const withPostgres = config.databaseUrl === undefined ? [] : EMBEDDED_ONLY.filter((key) => given.has(key));
  if (withPostgres.length > 0) {
    throw new ConfigError(`Invalid configuration: ${withPostgres.join(', ')} applies to the embedded store only and does nothing with databaseUrl (--database-url)`);
  }
  // A search stopped by the database's own limit answers 504 with its reason; the driver's limit
  // behind it only catches a database that stopped answering altogether.
  if (config.databaseUrl !== undefined && config.databaseStatementTimeoutMs <= config.searchTimeLimitMs) {
    throw new ConfigError(`Invalid configuration: databaseStatementTimeoutMs (${config.databaseStatementTimeoutMs}) must be longer than searchTimeLimitMs (${config.searchTimeLimitMs})`);
  }
  return Object.freeze(config);
}
