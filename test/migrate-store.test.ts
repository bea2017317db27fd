/**
 * `vigil migrate-store` through the installed bin (build first) on a real PostgreSQL: an embedded
 * store filled by `vigil simulate`, with a watchlist that hit and alerted, a ban and a user with a
 * password, moves over, and the server started on the target answers every search, event read,
 * watchlist and alert read with the same JSON as the embedded server did, to the same token.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dropTestDatabase, freshTestDatabase } from './support/postgres.js';
import { tempDir } from './support/temp.js';
import { BIN, startServer, type Server } from './support/vigil-cli.js';

function vigil(args: string[], input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input ?? '');
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

async function stop(server: Server): Promise<void> {
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0, server.output());
}

/**
 * What must differ: how long each server took to answer, and when the watchlists were last
 * searched, since every server starts with a watchlist pass (which finds no new hits here: the
 * hit counts are compared).
 */
const TIMINGS = new Set(['elapsed', 'search_timestamp']);
function withoutTimings(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (key, value: unknown) => (TIMINGS.has(key) ? undefined : value));
}

type Answers = Map<string, { status: number; body: unknown }>;

/** The reads that answered otherwise, each with how. */
function differences(actual: Answers, expected: Answers): string[] {
  const found: string[] = [];
  for (const [path, answer] of expected) {
    try {
      assert.deepEqual(actual.get(path), answer);
    } catch (error) {
      found.push(`${path}\n${(error as Error).message}`);
    }
  }
  return found;
}

interface Partition {
  name: string;
  status: string;
  info: { partitionId: number; startDate: string; endDate: string | null; userMounted: boolean };
}

/** The partitions as both stores must list them; sizes and where the events lie are each store's own. */
function partitionsOf(list: unknown): unknown {
  return Object.values(list as Record<string, Partition>).map(({ name, status, info }) => ({
    name, status, id: info.partitionId, start: info.startDate, end: info.endDate, userMounted: info.userMounted,
  }));
}

const WATCHLIST_QUERY = 'process_name:svchost.exe';
/** Process and binary searches, with facets, sorts and paging as cbapi sends them. */
const SEARCHES = [
  '/api/v1/process?q=&rows=100&facet=true',
  `/api/v1/process?q=${encodeURIComponent('process_name:svchost.exe OR process_name:vim')}&rows=50&sort=start%20asc`,
  // A later page reads the snapshot its first page took (the embedded store's paging): first pages first.
  `/api/v1/process?q=${encodeURIComponent('netconn_count:[1 TO *]')}&rows=2&facet=true&facet.field=hostname&facet.field=username_full`,
  `/api/v1/process?q=${encodeURIComponent('netconn_count:[1 TO *]')}&rows=20&start=2&facet=true&facet.field=hostname&facet.field=username_full`,
  `/api/v1/process?q=${encodeURIComponent('filemod:*.dll')}&rows=100`,
  `/api/v1/process?q=${encodeURIComponent('cmdline:-k')}&rows=100`,
  `/api/v1/process?q=${encodeURIComponent('hostname:* -process_name:svchost.exe')}&rows=10&sort=last_update%20desc&facet=true`,
  '/api/v1/process?q=&rows=0&facet=true&facet.field=process_name&facet.field=parent_name&facet.field=group',
  '/api/v2/process?q=&rows=100&cb.urlver=1',
  '/api/v1/binary?q=&rows=100&facet=true',
  `/api/v1/binary?q=${encodeURIComponent('observed_filename:*.exe')}&rows=20&sort=server_added_timestamp%20desc`,
  '/api/v1/binary?q=&rows=0&facet=true&facet.field=digsig_result&facet.field=group',
];

describe('vigil migrate-store moves an embedded installation to PostgreSQL', () => {
  const dataDir = tempDir('vigil-move-');
  const movedDataDir = tempDir('vigil-moved-');
  let target: { name: string; url: string };
  let token: string;
  /** Every read, as the embedded server answered it, with the first partition mounted and then unmounted. */
  let mountedAnswers: Answers;
  let unmountedAnswers: Answers;
  let reads: string[] = [];
  let partitions: unknown;
  let firstPartition: string;
  /** Binaries (of the first 100) whose content the embedded store held: it moves in pieces and downloads from PostgreSQL. */
  const withContent: string[] = [];
  const downloads = async (server: Server, md5: string) =>
    (await fetch(`${server.url}/api/v1/binary/${md5}`, { headers: { 'X-Auth-Token': token } })).status;

  const get = async (server: Server, path: string) => {
    const response = await fetch(`${server.url}${path}`, { headers: { 'X-Auth-Token': token } });
    const body = await response.text();
    assert.equal(response.status, 200, `${path}: ${body}`);
    return JSON.parse(body) as unknown;
  };
  /** Status and body: a read of an unmounted partition's events may be refused, and must be refused alike. */
  const answers = async (server: Server): Promise<Answers> => {
    const answered: Answers = new Map();
    for (const path of reads) {
      const response = await fetch(`${server.url}${path}`, { headers: { 'X-Auth-Token': token } });
      const text = await response.text();
      // A 404 answers Carbon Black's HTML page, as cbapi expects.
      answered.set(path, { status: response.status, body: response.headers.get('content-type')?.includes('json') ? withoutTimings(JSON.parse(text)) : text });
    }
    return answered;
  };
  const send = async (server: Server, method: string, path: string, payload: object) => {
    const response = await fetch(`${server.url}${path}`, {
      method, headers: { 'X-Auth-Token': token, 'content-type': 'application/json' }, body: JSON.stringify(payload),
    });
    const body = await response.text();
    assert.equal(response.status, 200, `${method} ${path}: ${body}`);
    return JSON.parse(body) as Record<string, unknown>;
  };

  before(async () => {
    target = await freshTestDatabase('empty', async () => undefined);
    const embedded = await startServer(['--http', '--data-dir', dataDir]);
    try {
      token = readFileSync(join(dataDir, 'admin-token.txt'), 'utf8').trim();
      const watchlist = await send(embedded, 'POST', '/api/v1/watchlist', {
        name: 'service hosts', search_query: `cb.urlver=1&q=${encodeURIComponent(WATCHLIST_QUERY)}`, index_type: 'events',
      });
      await send(embedded, 'PUT', `/api/v1/watchlist/${String(watchlist.id)}/action_type/3`, { enabled: true });
      const simulated = await vigil(['simulate', '--server', embedded.url, '--token', token, '--sensors', '2', '--processes', '30', '--seed', 'move']);
      assert.equal(simulated.status, 0, simulated.stderr);
      // A second storage partition: the later sensors' segments go to a new hot one.
      await send(embedded, 'POST', '/api/v1/storage/events/new_partition', {});
      const later = await vigil(['simulate', '--server', embedded.url, '--token', token, '--sensors', '1', '--processes', '20', '--seed', 'later']);
      assert.equal(later.status, 0, later.stderr);
      // A third, empty, hot partition.
      await send(embedded, 'POST', '/api/v1/storage/events/new_partition', {});
      await send(embedded, 'POST', '/api/v1/banning/blacklist', { md5hash: 'a'.repeat(32), text: 'moved ban' });
      const added = await vigil(['user', 'add', 'bob', '--password-stdin', '--data-dir', dataDir], 'tr0ub4dor&3\n');
      assert.equal(added.status, 0, added.stderr);
      for (const deadline = Date.now() + 20_000; ;) {
        const alerts = await get(embedded, '/api/v2/alert?q=&rows=0') as { total_results: number };
        if (alerts.total_results > 0) break;
        assert.ok(Date.now() < deadline, 'the watchlist alerted');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const found = await get(embedded, '/api/v1/process?q=&rows=200&sort=start%20asc') as { results: { id: string; segment_id: number }[] };
      const some = found.results.filter((_, i) => i % 10 === 0);
      reads = [
        ...SEARCHES,
        ...some.flatMap(({ id, segment_id }) => [
          `/api/v1/process/${id}/${segment_id}/event`, `/api/v2/process/${id}/${segment_id}/event`,
          `/api/v3/process/${id}/${segment_id}/event`, `/api/v4/process/${id}/${segment_id}/event`,
          `/api/v4/process/${id}/0/event`, `/api/v2/process/${id}/${segment_id}?children=10`,
        ]),
        '/api/v1/watchlist', `/api/v1/watchlist/${String(watchlist.id)}`, `/api/v1/process?q=watchlist_${String(watchlist.id)}:*&rows=50`,
        '/api/v2/alert?q=&rows=100', '/api/v1/banning/blacklist', '/api/users', '/api/v1/sensor', '/api/group',
      ];
      const binaries = await get(embedded, '/api/v1/binary?q=&rows=100') as { results: { md5: string }[] };
      for (const { md5 } of binaries.results) if (await downloads(embedded, md5) === 200) withContent.push(md5);
      assert.ok(withContent.length > 0, 'the simulator uploaded some binaries\' content');
      mountedAnswers = await answers(embedded);
      // The first partition unmounted (kept, not searched): it moves so.
      firstPartition = Object.values(await get(embedded, '/api/v1/storage/events/partition') as Record<string, Partition>)
        .sort((a, b) => a.info.partitionId - b.info.partitionId)[0]!.name;
      await send(embedded, 'POST', `/api/v1/storage/events/${firstPartition}/unmount`, {});
      unmountedAnswers = await answers(embedded);
      partitions = partitionsOf(await get(embedded, '/api/v1/storage/events/partition'));
      assert.equal((mountedAnswers.get(SEARCHES[0]!)!.body as { total_results: number }).total_results, 80);
      assert.equal((unmountedAnswers.get(SEARCHES[0]!)!.body as { total_results: number }).total_results, 20, 'the first partition is not searched');
    } finally {
      await stop(embedded);
    }
  });
  after(async () => {
    await dropTestDatabase(target.name);
    for (const dir of [dataDir, movedDataDir]) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses while a server has the store open, and with a secret key that is not the store\'s', async () => {
    const running = await startServer(['--http', '--data-dir', dataDir]);
    try {
      const refused = await vigil(['migrate-store', '--from', dataDir, '--to', target.url]);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /^vigil: The embedded store .* is in use: stop the Vigil server/);
    } finally {
      await stop(running);
    }
    const otherKey = join(movedDataDir, 'other.key');
    writeFileSync(otherKey, randomBytes(32).toString('hex'));
    const wrongKey = await vigil(['migrate-store', '--from', dataDir, '--to', target.url, '--secret-key-file', otherKey]);
    assert.equal(wrongKey.status, 1);
    assert.match(wrongKey.stderr, /^vigil: The secret key file .* is not the key the embedded store's secrets were sealed with/);
  });

  it('moves every table and the events, and prints a summary per table', async () => {
    const moved = await vigil(['migrate-store', '--from', dataDir, '--to', target.url]);
    assert.equal(moved.status, 0, moved.stderr);
    assert.match(moved.stdout, /^ {2}processes +80$/m);
    assert.match(moved.stdout, /^ {2}event_chunks +[1-9]\d*$/m);
    assert.match(moved.stdout, /^ {2}users +2$/m);
    assert.match(moved.stdout, /^ {2}binary_content \(files\) +[1-9]\d*$/m);
    assert.ok(!moved.stdout.includes('vigil-test'), 'the password is not shown');
  });

  it('refuses to move into a database that already holds data, unless --force', async () => {
    const again = await vigil(['migrate-store', '--from', dataDir, '--to', target.url]);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /^vigil: The target database already holds data \(2 users, 3 sensors, 1 watchlists\)\. .*--force/);
    const forced = await vigil(['migrate-store', '--from', dataDir, '--to', target.url, '--force']);
    assert.equal(forced.status, 0, forced.stderr);
  });

  it('the server on PostgreSQL reads back the same searches, events, watchlists and alerts, to the same token and password', async () => {
    const moved = await startServer(['--http', '--database-url', target.url, '--data-dir', movedDataDir,
      '--secret-key-file', join(dataDir, 'secrets.key')]);
    try {
      assert.deepEqual(differences(await answers(moved), unmountedAnswers), []);
      assert.deepEqual(partitionsOf(await get(moved, '/api/v1/storage/events/partition')), partitions);
      // Mounted again on PostgreSQL, the moved partition answers as it did on the embedded store.
      await send(moved, 'POST', `/api/v1/storage/events/${firstPartition}/mount`, {});
      assert.deepEqual(differences(await answers(moved), mountedAnswers), []);
      const login = await fetch(`${moved.url}/api/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bob', password: 'tr0ub4dor&3' }),
      });
      assert.equal(login.status, 200, await login.text());
      for (const md5 of withContent) assert.equal(await downloads(moved, md5), 200, md5);
      // New rows take ids past the moved ones.
      const ban = await send(moved, 'POST', '/api/v1/banning/blacklist', { md5hash: 'b'.repeat(32), text: 'after the move' });
      assert.ok(ban);
      const watchlist = await send(moved, 'POST', '/api/v1/watchlist', { name: 'after the move', search_query: 'q=process_name:vim', index_type: 'events' });
      assert.ok(Number(watchlist.id) > 1, JSON.stringify(watchlist));
    } finally {
      await stop(moved);
    }
  });
});
