/**
 * The matcher's reads on PostgreSQL find what the embedded store's find: a watchlist search
 * (catch-up and live) and feed value IOCs (everywhere and in new segments), over the same events,
 * answered as documents (sensor, pid, segment id) since row ids differ between the databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bothStores, FLEET_T0, type BothStores } from '../../test/support/both-stores.js';
import type { SqlDatabase } from '../db/database.js';
import { SqliteReadPool } from '../db/dialects/sqlite-read-pool.js';
import { analyzeParams } from '../query/params.js';
import { PooledMatchReads, READ_HANDLERS } from '../wiring/sqlite-read-stores.js';
import type { IocHit, MatchJob, MatchReads, MatchResult } from './match.plan.js';
import { PostgresMatchReads } from './match.postgres.js';

const BINARY_MD5 = 'd'.repeat(32);
/** The md5 of a child process in the fleet's events (test/support/sensors.ts). */
const CHILD_MD5 = 'c'.repeat(32);

/**
 * A feed with two reports: one holding a child's md5, a domain, an address, a binary's md5 and a
 * value nothing holds; the other the md5 every stored process has (a report tags a document once,
 * so it would hide the first report's other values).
 */
async function seedFeed(db: SqlDatabase): Promise<number[]> {
  const processMd5 = (await db.get<{ md5: string }>("SELECT md5 FROM processes WHERE md5 <> '' ORDER BY pid LIMIT 1"))!.md5;
  const feed = await db.get<{ id: number }>(
    `INSERT INTO feeds (name, display_name, feed_url, summary, tech_data, provider_url, icon, icon_small, category_tokens, enabled, manually_added, created_ms)
     VALUES ('intel', 'Intel', 'https://x', '', '', '', '', '', '', 1, 1, 0) RETURNING id`,
  );
  const reports: [string, [string, string, string | null][]][] = [
    ['r1', [['md5', CHILD_MD5, null], ['dns', 'login.microsoftonline.com', null], ['ipv4', '10.9.8.7', '0a090807'], ['md5', BINARY_MD5, null],
      ['dns', 'nowhere.example', null]]],
    ['r2', [['sha256', 'f'.repeat(64), null], ['md5', processMd5, null]]],
  ];
  const rows: number[] = [];
  for (const [reportId, iocs] of reports) {
    const report = await db.get<{ id: number }>(
      `INSERT INTO threat_reports (feed_id, report_id, title, description, link, score, timestamp_s, tags, iocs, title_tokens, description_tokens,
         tags_tokens, created_ms, updated_ms) VALUES (?, ?, 't', '', '', 50, 0, '', '', '', '', '', 0, 0) RETURNING id`, [feed!.id, reportId],
    );
    for (const [type, value, hex] of iocs) {
      await db.run('INSERT INTO report_iocs (ioc_type, value, report_row, address_hex) VALUES (?, ?, ?, ?)', [type, value, report!.id, hex]);
    }
    rows.push(report!.id);
  }
  await db.run(`INSERT INTO binaries (md5, size, metadata, first_seen_ms, last_seen_ms) VALUES (?, 1, '{}', ?, ?)`, [BINARY_MD5, FLEET_T0, FLEET_T0]);
  return rows;
}

/** A result with segment rows as documents the two databases share. */
async function documents(db: SqlDatabase, reportRows: number[], result: MatchResult) {
  const rows = await db.all<{ id: number; doc: string }>(
    "SELECT s.id, p.sensor_id || '/' || p.pid || '/' || s.segment_id AS doc FROM segments s JOIN processes p ON p.id = s.process_id",
  );
  const doc = new Map(rows.map((row) => [row.id, row.doc]));
  const named = (found: number | string) => (typeof found === 'number' ? doc.get(found)! : found);
  const report = (h: IocHit) => (h.reportRow === reportRows[0] ? 'r1' : 'r2');
  const document = (h: IocHit) => (h.segment === undefined ? h.md5! : doc.get(h.segment)!);
  return {
    found: result.found.map((docs) => docs.map(named).sort()),
    // A report tags a document once, with whichever of its values was found first there: compared without the value.
    iocHits: result.iocHits.map((h) => `${report(h)} ${document(h)}`).sort(),
    checked: result.checked,
    values: result.iocHits.map((h) => `${report(h)} ${h.type} ${h.value} ${document(h)}`),
  };
}

describe('detection match reads on PostgreSQL', () => {
  let stores: BothStores;
  let pool: SqliteReadPool;
  let sqlite: MatchReads;
  let postgres: MatchReads;
  let reports: { sqlite: number[]; postgres: number[] };
  before(async () => {
    stores = await bothStores();
    reports = { sqlite: await seedFeed(stores.sqlite), postgres: await seedFeed(stores.postgres) };
    pool = new SqliteReadPool(stores.sqlite.connection.name, { workers: 1, handlers: { [READ_HANDLERS.detectionMatch.name]: READ_HANDLERS.detectionMatch.url } });
    sqlite = new PooledMatchReads(pool);
    postgres = new PostgresMatchReads(stores.postgres);
  });
  after(async () => {
    await pool.close();
    await stores.close();
  });

  const both = async (job: (reads: MatchReads, reportRows: number[]) => MatchJob) => {
    const { values, ...expected } = await documents(stores.sqlite, reports.sqlite, await sqlite.run(job(sqlite, reports.sqlite)));
    const { values: found, ...actual } = await documents(stores.postgres, reports.postgres, await postgres.run(job(postgres, reports.postgres)));
    return { expected, actual, values, found };
  };
  const spec = (reads: MatchReads, id: number, q: string, probe: boolean) => {
    const { predicate } = analyzeParams({ q }, { index: 'process', now: FLEET_T0 });
    return { owner: 'watchlist' as const, id, index: 'events' as const, fromMs: 0, ...reads.compile(predicate, 'events', probe) };
  };

  it('finds a watchlist\'s documents in a catch-up', async () => {
    const { expected, actual } = await both((reads) => ({ kind: 'catch-up', specs: [spec(reads, 1, 'domain:microsoftonline.com', false), spec(reads, 2, 'process_name:nothing.exe', false)] }));
    assert.ok(expected.found[0]!.length > 0, 'the watchlist finds something');
    assert.deepEqual(actual, expected);
  });

  it('finds the searches and the value IOCs in the segments of a live run', async () => {
    const { expected, actual, found } = await both((reads) => ({
      kind: 'live', fromMs: 0, afterRow: 0, iocVersion: 1, specs: [spec(reads, 1, 'ipaddr:10.9.8.7', true), spec(reads, 2, 'cmdline:quiet', true)],
    }));
    for (const kind of ['r1 md5', 'r2 md5']) assert.ok(found.some((hit) => hit.startsWith(kind)), `${kind}:\n${found.join('\n')}`);
    assert.ok(found.some((hit) => hit.startsWith('r1 ipv4') || hit.startsWith('r1 dns')), found.join('\n'));
    assert.deepEqual(actual, expected);
  });

  it('finds a report\'s value IOCs over all stored data, binaries included, and leaves out what it tagged', async () => {
    const everywhere = await both(() => ({ kind: 'iocs', reportRows: null }));
    for (const kind of ['r2 md5', `r1 md5 ${BINARY_MD5} ${BINARY_MD5}`]) {
      assert.ok(everywhere.found.some((hit) => hit.startsWith(kind)), `${kind}:\n${everywhere.found.join('\n')}`);
    }
    assert.ok(everywhere.found.some((hit) => hit.startsWith('r1 ipv4') || hit.startsWith('r1 dns')), everywhere.found.join('\n'));
    assert.deepEqual(everywhere.actual, everywhere.expected);
    for (const [db, reportRows] of [[stores.sqlite, reports.sqlite], [stores.postgres, reports.postgres]] as const) {
      await db.run('INSERT INTO feed_binary_hits (report_row, md5, hit_ms) VALUES (?, ?, 0)', [reportRows[0]!, BINARY_MD5]);
    }
    const after = await both((_reads, reportRows) => ({ kind: 'iocs', reportRows: [reportRows[0]!] }));
    assert.ok(!after.found.some((hit) => hit.endsWith(BINARY_MD5)));
    assert.deepEqual(after.actual, after.expected);
    assert.deepEqual((await postgres.run({ kind: 'iocs', reportRows: [] })).iocHits, []);
  });
});
