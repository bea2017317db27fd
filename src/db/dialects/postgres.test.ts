/** The PostgreSQL dialect on a real server: what it settles so that stores written for SQLite run unchanged. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dropTestDatabase, freshTestDatabase, onServer } from '../../../test/support/postgres.js';
import { DatabaseUnavailable, ForeignKeyViolation, UniqueViolation } from '../errors.js';
import { PostgresDatabase } from './postgres.js';

describe('PostgreSQL dialect', () => {
  let name: string;
  let db: PostgresDatabase;
  before(async () => {
    const fresh = await freshTestDatabase('empty', async () => undefined);
    name = fresh.name;
    db = PostgresDatabase.open(fresh.url);
    await db.exec(`
      CREATE TABLE parents (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, flag INTEGER NOT NULL DEFAULT 0);
      CREATE TABLE children (id BIGSERIAL PRIMARY KEY, parent_id BIGINT NOT NULL REFERENCES parents (id));
      CREATE TABLE counter (id INTEGER PRIMARY KEY, value BIGINT NOT NULL);
      INSERT INTO counter VALUES (1, 0);
    `);
  });
  after(async () => {
    await db.close();
    await dropTestDatabase(name);
  });

  it('takes ? placeholders, binds booleans as 0/1 and gives numbers for BIGINT and NUMERIC', async () => {
    const inserted = await db.get<{ id: number }>('INSERT INTO parents (name, flag) VALUES (?, ?) RETURNING id', ["it's ?", true]);
    assert.equal(typeof inserted?.id, 'number');
    const row = await db.get<{ name: string; flag: number; n: number; total: number }>(
      "SELECT name, flag, COUNT(*) OVER () AS n, SUM(id) OVER () AS total FROM parents WHERE name = ? AND '?' = '?'", ["it's ?"],
    );
    assert.deepEqual(row, { name: "it's ?", flag: 1, n: 1, total: inserted!.id });
    assert.deepEqual(await db.run('UPDATE parents SET flag = ? WHERE id = ?', [false, inserted!.id]), { changes: 1 });
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    await db.transaction(async (tx) => void (await tx.run("INSERT INTO parents (name) VALUES ('kept')")));
    await assert.rejects(db.transaction(async (tx) => {
      await tx.run("INSERT INTO parents (name) VALUES ('dropped')");
      throw new Error('changed my mind');
    }), /changed my mind/);
    const names = (await db.all<{ name: string }>('SELECT name FROM parents ORDER BY id')).map((r) => r.name);
    assert.ok(names.includes('kept'));
    assert.ok(!names.includes('dropped'));
  });

  it('serializes read-then-write transactions, retrying the ones PostgreSQL refuses, so no update is lost', async () => {
    const increments = 40;
    await Promise.all(Array.from({ length: increments }, () => db.transaction(async (tx) => {
      const row = await tx.get<{ value: number }>('SELECT value FROM counter WHERE id = 1');
      await tx.run('UPDATE counter SET value = ? WHERE id = 1', [row!.value + 1]);
    })));
    assert.equal((await db.get<{ value: number }>('SELECT value FROM counter WHERE id = 1'))?.value, increments);
  });

  it('reports unique and foreign key violations as the dialect-neutral errors, in and out of transactions', async () => {
    await db.run("INSERT INTO parents (name) VALUES ('twin')");
    await assert.rejects(db.run("INSERT INTO parents (name) VALUES ('twin')"), UniqueViolation);
    await assert.rejects(db.transaction((tx) => tx.run('INSERT INTO children (parent_id) VALUES (?)', [987_654])), ForeignKeyViolation);
  });

  it('answers DatabaseUnavailable, a 503, when the server cannot be reached', async () => {
    const unreachable = PostgresDatabase.open('postgres://nobody:x@127.0.0.1:1/none');
    try {
      await assert.rejects(unreachable.get('SELECT 1'), (error) => error instanceof DatabaseUnavailable && error.reason === 'database_unavailable');
      await assert.rejects(unreachable.transaction((tx) => tx.get('SELECT 1')), DatabaseUnavailable);
    } finally {
      await unreachable.close();
    }
  });

  it('answers DatabaseUnavailable while the database refuses connections and after its connections were ended', async () => {
    const fresh = await freshTestDatabase('empty', async () => undefined);
    const closing = PostgresDatabase.open(fresh.url, { poolSize: 1 });
    try {
      // Ended while a transaction holds it between statements: the connection reports the end as
      // an 'error' event then, which must not bring the process down.
      let resume = () => undefined as void;
      let begun = () => undefined as void;
      const cut = new Promise<void>((resolve) => (resume = resolve));
      const holding = new Promise<void>((resolve) => (begun = resolve));
      const interrupted = closing.transaction(async (tx) => {
        await tx.get('SELECT 1');
        begun();
        await cut;
        return tx.get('SELECT 1');
      });
      await holding;
      await onServer(`ALTER DATABASE ${fresh.name} ALLOW_CONNECTIONS false`);
      await onServer(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${fresh.name}'`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      resume();
      await assert.rejects(interrupted, DatabaseUnavailable, 'the transaction whose connection was ended');
      await assert.rejects(closing.get('SELECT 1'), DatabaseUnavailable, 'a new connection refused');
      await assert.rejects(closing.transaction((tx) => tx.get('SELECT 1')), DatabaseUnavailable);
    } finally {
      await closing.close();
      await dropTestDatabase(fresh.name);
    }
  });
});
