import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, envName, loadConfig } from './load.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const config = loadConfig();
    assert.equal(config.dataDir, './vigil-data');
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8443);
    assert.equal(config.tls, true);
    assert.ok(Object.isFrozen(config));
  });

  it('keeps a sensor\'s connection open from one check-in to the next by default, as real sensors expect', () => {
    const config = loadConfig();
    // Shorter, and every check-in of a fleet pays a new TLS handshake (issue 22 point 5).
    assert.ok(config.keepAliveTimeoutSeconds > config.checkinIntervalSeconds * 2,
      `keep-alive ${config.keepAliveTimeoutSeconds} s, check-in every ${config.checkinIntervalSeconds} s`);
  });

  it('reads VIGIL_* variables and lets explicit overrides win', () => {
    assert.equal(envName('dataDir'), 'VIGIL_DATA_DIR');
    const env = { VIGIL_PORT: '9443', VIGIL_TLS: 'false', VIGIL_HOST: '0.0.0.0' };
    const config = loadConfig({ host: '::1', port: undefined }, env);
    assert.equal(config.port, 9443);
    assert.equal(config.tls, false);
    assert.equal(config.host, '::1');
  });

  it('rejects invalid settings with a message naming them', () => {
    assert.throws(() => loadConfig({}, { VIGIL_PORT: 'eighty' }), (error: unknown) =>
      error instanceof ConfigError && /port/.test(error.message));
    assert.throws(() => loadConfig({ port: 70000 }), ConfigError);
    assert.throws(() => loadConfig({ logLevel: 'chatty' as never }), /logLevel/);
  });

  it('bounds the event writer\'s and the search threads\' heaps at 512 MB by default, settable from the environment, and not below 64', () => {
    for (const [key, variable] of [['ingestWriterHeapMb', 'VIGIL_INGEST_WRITER_HEAP_MB'], ['searchHeapMb', 'VIGIL_SEARCH_HEAP_MB']] as const) {
      assert.equal(loadConfig()[key], 512);
      assert.equal(loadConfig({}, { [variable]: '768' })[key], 768);
      assert.throws(() => loadConfig({ [key]: 32 }), (error: unknown) => error instanceof ConfigError && error.message.includes(key));
    }
  });

  it('wants the driver\'s statement limit longer than the search limit, which it would otherwise cut short', () => {
    const databaseUrl = 'postgres://vigil@localhost/vigil';
    assert.throws(() => loadConfig({ databaseUrl, searchTimeLimitMs: 60_000, databaseStatementTimeoutMs: 60_000 }), (error: unknown) =>
      error instanceof ConfigError && /databaseStatementTimeoutMs .* searchTimeLimitMs/.test(error.message));
    assert.equal(loadConfig({ databaseUrl, searchTimeLimitMs: 60_000, databaseStatementTimeoutMs: 60_001 }).databaseStatementTimeoutMs, 60_001);
    assert.equal(loadConfig({ searchTimeLimitMs: 150_000 }).searchTimeLimitMs, 150_000, 'the embedded store has no driver limit to cut a search');
  });

  it('refuses PostgreSQL\'s settings for the embedded store, where they would do nothing', () => {
    const refused = (error: unknown, name: string) => error instanceof ConfigError && new RegExp(`${name} applies to PostgreSQL only and needs databaseUrl`).test(error.message);
    assert.throws(() => loadConfig({ databaseVacuumSeconds: 10 }), (error: unknown) => refused(error, 'databaseVacuumSeconds'));
    assert.throws(() => loadConfig({ databasePoolSize: 12 }), (error: unknown) => refused(error, 'databasePoolSize'));
    assert.throws(() => loadConfig({}, { VIGIL_DATABASE_STATEMENT_TIMEOUT_MS: '45000' }), (error: unknown) => refused(error, 'databaseStatementTimeoutMs'));
    const databaseUrl = 'postgres://vigil@localhost/vigil';
    const onPostgres = loadConfig({ databaseUrl, databaseVacuumSeconds: 10, databasePoolSize: 12 }, { VIGIL_DATABASE_STATEMENT_TIMEOUT_MS: '45000' });
    assert.deepEqual([onPostgres.databaseVacuumSeconds, onPostgres.databasePoolSize, onPostgres.databaseStatementTimeoutMs], [10, 12, 45_000]);
  });

  it('refuses the embedded store\'s settings on PostgreSQL, where they would do nothing', () => {
    const databaseUrl = 'postgres://vigil@localhost/vigil';
    const refused = (error: unknown, name: string) => error instanceof ConfigError && new RegExp(`${name} applies to the embedded store only`).test(error.message);
    const embeddedOnly = {
      searchWorkers: 4, searchThreadNice: 5, searchCacheMb: 32, searchHeapMb: 256, searchMmapMb: 0,
      sqlitePageCacheMb: 128, sqliteWalLimitMb: 512, databaseLockWaitMs: 2_000,
    };
    for (const [name, value] of Object.entries(embeddedOnly)) {
      assert.throws(() => loadConfig({ databaseUrl, [name]: value }), (error: unknown) => refused(error, name), name);
      assert.equal(loadConfig({ [name]: value })[name as keyof typeof embeddedOnly], value, `${name} on the embedded store`);
    }
    assert.throws(() => loadConfig({ databaseUrl }, { VIGIL_SEARCH_HEAP_MB: '256' }), (error: unknown) => refused(error, 'searchHeapMb'));
    assert.equal(loadConfig({ databaseUrl }).searchWorkers, 2, 'the defaults are no one\'s choice and stay quiet');
  });
});
