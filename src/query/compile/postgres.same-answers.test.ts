/**
 * Both compilers against each other: the same events ingested by both event stores, then each
 * query run on both, with the segments found compared. What the SQLite store answers is the
 * reference (its matching rules are the query language's own code, sqlite-functions.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bothStores, FLEET_T0 as T0, type BothStores } from '../../../test/support/both-stores.js';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import type { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { analyzeParams } from '../params.js';
import { compilePostgresProcessCondition } from './postgres.js';
import { compileProcessCondition } from './sqlite.js';
import { SQLITE_FUNCTIONS } from './sqlite-functions.js';

const QUERIES = [
  'process_name:cmd.exe', 'process_name:app*', 'path:system32\\cmd.exe', 'path:c:\\program?files\\*\\app.exe', 'path:app\\*',
  'cmdline:whoami', 'cmdline:"/c whoami"', 'cmdline:*hoa*', 'cmdline:.exe', 'cmdline:.e*', 'cmdline:/quiet', 'cmdline:"x.ini /quiet"',
  'filemod:out.txt', 'filemod:temp\\*', 'filemod:appdata\\local\\*', 'regmod:\\registry\\machine\\system\\controlset001\\services\\x',
  'modload:ntdll.dll', 'modload:*.dll', 'domain:example.com', 'domain:com', 'domain:.com', 'domain:microsoftonline.com', 'domain:login.*',
  'ipaddr:93.184.216.0/24', 'ipaddr:10.0.0.0/8', 'ipport:443', 'ipport:[1 TO 1000]', 'childproc_name:whoami.exe', 'crossproc_name:lsass.exe',
  'crossproc_type:process_open', 'md5:cccccccccccccccccccccccccccccccc', 'md5:ad7b9c14083b52bc532fba5948342b98', 'username:corp\\alice',
  'username:CORP\\B*', 'hostname:HOST', 'hostname:ho*', 'host_type:server', 'os_type:lin*', 'group:"default group"', 'netconn_count:[1 TO *]',
  '-domain:example.com', '-cmdline:whoami', 'domain:com OR cmdline:quiet', 'start:[2024-04-30T00:00:00 TO *]',
];

/** As the pipeline hands batches to the store: normalized (normalize.ts), then prepared. */
describe('the same searches give the same segments on SQLite and PostgreSQL', () => {
  let stores: BothStores;
  let sqlite: SqliteDatabase;
  let postgres: PostgresDatabase;
  before(async () => {
    stores = await bothStores();
    ({ sqlite, postgres } = stores);
    for (const [name, fn] of Object.entries(SQLITE_FUNCTIONS)) sqlite.connection.function(name, { deterministic: true }, fn);
  });
  after(async () => stores.close());

  for (const q of QUERIES) {
    it(q, async () => {
      const { predicate } = analyzeParams({ q }, { index: 'process', now: T0 + 86_400_000 });
      const expected = compileProcessCondition(predicate);
      const actual = compilePostgresProcessCondition(predicate);
      const found = (db: SqliteDatabase | PostgresDatabase, condition: { sql: string; params: readonly (string | number | bigint)[] }, join: string) =>
        db.all<{ pid: number; segment_id: number }>(`SELECT p.pid, s.segment_id FROM segments s JOIN processes p ON ${join} WHERE ${condition.sql} ORDER BY 1, 2`, condition.params);
      const reference = await found(sqlite, expected, 'p.id = s.process_id');
      assert.deepEqual(await found(postgres, actual, 'p.sensor_id = s.sensor_id AND p.id = s.process_id'), reference);
    });
  }

  it('finds something for most queries, so the comparisons mean something', async () => {
    const empty: string[] = [];
    for (const q of QUERIES) {
      const { predicate } = analyzeParams({ q }, { index: 'process', now: T0 + 86_400_000 });
      const compiled = compileProcessCondition(predicate);
      const rows = await sqlite.all(`SELECT 1 FROM segments s JOIN processes p ON p.id = s.process_id WHERE ${compiled.sql}`, compiled.params);
      if (rows.length === 0) empty.push(q);
    }
    assert.deepEqual(empty, []);
  });
});
