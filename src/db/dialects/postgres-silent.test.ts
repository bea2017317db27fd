/**
 * A PostgreSQL database that goes silent (its connections stay open but nothing answers, as in a
 * network partition) fails statements after the statement time limit, as DatabaseUnavailable,
 * in and out of transactions, instead of holding them forever; once it answers again the pool
 * hands out fresh connections and nothing half-sent was applied.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dropTestDatabase, freshTestDatabase } from '../../../test/support/postgres.js';
import { startSilentProxy, type SilentProxy } from '../../../test/support/silent-proxy.js';
import { DatabaseUnavailable } from '../errors.js';
import { PostgresDatabase } from './postgres.js';

const STATEMENT_TIMEOUT_MS = 1_500;
/** The statement limit, or the pool's connect limit (5 s) for a statement that needs a new connection, and a margin. */
const PROMPT_MS = 9_000;

/** Settles the promise, or says it was still waiting after the limit. */
async function outcomeWithin(work: Promise<unknown>, limitMs: number): Promise<{ error?: unknown; ms: number; waiting?: true }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ waiting: true; ms: number }>((resolve) => {
    timer = setTimeout(() => resolve({ waiting: true, ms: limitMs }), limitMs);
  });
  try {
    return await Promise.race([work.then(() => ({ ms: Date.now() - started }), (error: unknown) => ({ error, ms: Date.now() - started })), late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('a PostgreSQL database that goes silent', () => {
  let name: string;
  let proxy: SilentProxy;
  let db: PostgresDatabase;
  before(async () => {
    const fresh = await freshTestDatabase('silent', async () => undefined);
    name = fresh.name;
    const url = new URL(fresh.url);
    proxy = await startSilentProxy({ host: url.hostname, port: Number(url.port) });
    url.host = `127.0.0.1:${proxy.port}`;
    db = PostgresDatabase.open(url.toString(), { poolSize: 3, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
    await db.exec('CREATE TABLE notes (id BIGSERIAL PRIMARY KEY, text TEXT NOT NULL)');
  });
  after(async () => {
    await db.close();
    await proxy.close();
    await dropTestDatabase(name);
  });

  it('fails writes and transactions within the statement limit, then works on fresh connections', { timeout: 60_000 }, async () => {
    await db.run("INSERT INTO notes (text) VALUES ('before')");
    proxy.silence();
    const [write, transaction] = await Promise.all([
      outcomeWithin(db.run("INSERT INTO notes (text) VALUES ('lost in the silence')"), PROMPT_MS),
      outcomeWithin(db.transaction(async (tx) => {
        await tx.run("INSERT INTO notes (text) VALUES ('never committed')");
      }), PROMPT_MS),
    ]);
    for (const [what, outcome] of [['write', write], ['transaction', transaction]] as const) {
      assert.equal(outcome.waiting, undefined, `the ${what} was still waiting after ${PROMPT_MS} ms`);
      assert.ok(outcome.error instanceof DatabaseUnavailable, `the ${what} failed with ${String(outcome.error)}`);
    }
    proxy.restore();
    await db.run("INSERT INTO notes (text) VALUES ('after')");
    const texts = (await db.all<{ text: string }>('SELECT text FROM notes ORDER BY id')).map((row) => row.text);
    assert.deepEqual(texts, ['before', 'after']);
  });
});
