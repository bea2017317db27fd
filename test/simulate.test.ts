/**
 * The simulator against the real server: a Vigil app listening on plain HTTP, three simulated
 * sensors, and the server's own ingest counters as the judge of what arrived.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { unzipSync } from 'fflate';
import { describeProgress } from '../src/cli/simulate.js';
import { SqlSensorsStore } from '../src/modules/sensors/sensors.store.js';
import { BinaryCatalog, type Binary } from '../src/sensor/binaries.js';
import { Endpoint } from '../src/sensor/endpoint.js';
import { simulate, type SimulationOptions, type SimulationProgress } from '../src/sensor/simulator.js';
import { vigilSimulate } from './support/simulate-cli.js';
import { as, openAppDatabase, startListeningTestApp, type ListeningTestApp } from './support/app.js';

type Counters = Record<string, number>;

async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(20)) {
    const value = await probe();
    if (value !== undefined) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('vigil simulate against a real server', () => {
  let test: ListeningTestApp;
  let server: string;

  before(async () => {
    test = await startListeningTestApp();
    server = test.url;
  });
  after(() => test.close());

  const options = (overrides: Partial<SimulationOptions> = {}): SimulationOptions => ({
    server, token: test.adminToken, sensors: 3, processes: 40, seed: 'e2e', batchSize: 500, ...overrides,
  });

  async function stats(): Promise<Counters> {
    const reply = await test.app.inject({ url: '/api/v1/ingest/stats', headers: as(test.adminToken) });
    assert.equal(reply.statusCode, 200, reply.body);
    return reply.json<Counters>();
  }

  it('registers every sensor, and every event it sends is acknowledged and counted by the server once', async () => {
    const before = await stats();
    const summary = await simulate(options());

    assert.deepEqual(summary.errors, []);
    assert.equal(summary.ok, true);
    assert.equal(summary.sensors, 3);
    assert.ok(summary.events_sent > 3 * 40, `${summary.events_sent} events for 120 processes`);
    assert.equal(summary.events_acknowledged, summary.events_sent);
    assert.equal(summary.events_accepted, summary.events_sent);
    assert.equal(summary.rejected, 0);
    assert.equal(summary.duplicates, 0);
    assert.ok(summary.binaries > 0);

    const after = await stats();
    assert.equal((after.events_accepted ?? 0) - (before.events_accepted ?? 0), summary.events_sent);
    assert.equal((after.batches_accepted ?? 0) - (before.batches_accepted ?? 0), summary.batches);
  });

  it('uploads binaries whose summaries, icons and content the analyst API then serves', async () => {
    const seed = 'binaries';
    const summary = await simulate(options({ seed, processes: 20 }));
    assert.deepEqual(summary.errors, []);

    // The same seed gives the same endpoints and binaries: replay them here to know what was sent.
    const catalog = new BinaryCatalog(seed);
    const sent = Array.from({ length: 3 }, (_, index) => {
      const endpoint = new Endpoint({ seed, index, startMs: 0, processes: 20, binaries: catalog });
      const binaries: Binary[] = [];
      while (!endpoint.exhausted) {
        endpoint.take(500);
        binaries.push(...endpoint.takeBinaries());
      }
      return { os: endpoint.os, binaries };
    });
    const osType = { windows: 'Windows', linux: 'Linux', osx: 'OSX' };
    let icons = 0;
    for (const { os, binaries } of sent) {
      for (const { md5, metadata } of binaries) {
        const reply = await test.app.inject({ url: `/api/v1/binary/${md5}/summary`, headers: as(test.adminToken) });
        assert.equal(reply.statusCode, 200, `${metadata.observed_filename}: ${reply.body}`);
        const doc = reply.json();
        assert.equal(doc.os_type, osType[os]);
        assert.equal(doc.copied_mod_len, metadata.size);
        assert.equal(doc.digsig_result, metadata.digsig!.result);
        assert.equal(doc.digsig_publisher, metadata.digsig!.publisher);
        assert.equal(doc.digsig_issuer, metadata.digsig!.issuer);
        assert.equal(doc.company_name, metadata.company_name);
        if (metadata.icon !== undefined) {
          icons++;
          assert.equal(doc.icon, metadata.icon);
        }
      }
    }
    assert.ok(icons > 0, 'Windows programs came with their icons');
    const [first] = sent.flatMap((s) => s.binaries);
    const download = await test.app.inject({ url: `/api/v1/binary/${first!.md5}`, headers: as(test.adminToken) });
    assert.deepEqual(Buffer.from(unzipSync(download.rawPayload).filedata!), first!.content);
  });

  it('retries a batch whose answer was lost and the server stores it once', async () => {
    // The first events upload is committed but its answer never leaves: the socket is cut instead.
    const [handler] = test.app.server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    let cut = false;
    test.app.server.removeAllListeners('request');
    test.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!cut && req.url === '/sensor/v1/events') {
        cut = true;
        res.writeHead = () => res;
        res.end = () => (req.socket.destroy(), res);
      }
      handler!(req, res);
    });
    try {
      const before = await stats();
      const summary = await simulate(options({ sensors: 1, seed: 'lost-answer' }));

      assert.equal(cut, true);
      assert.deepEqual(summary.errors, []);
      assert.equal(summary.events_acknowledged, summary.events_sent);
      assert.ok(summary.retries >= 1);
      assert.equal(summary.duplicates, 1);
      const after = await stats();
      assert.equal((after.events_accepted ?? 0) - (before.events_accepted ?? 0), summary.events_sent);
      assert.equal((after.batches_duplicate ?? 0) - (before.batches_duplicate ?? 0), 1);
    } finally {
      test.app.server.removeAllListeners('request');
      test.app.server.on('request', handler!);
    }
  });

  it('obeys isolation requested over the API as cbapi does it, reports it, and keeps checking in while isolated', async () => {
    const name = new Endpoint({ seed: 'isolation', index: 0, startMs: 0 }).facts.computer_name;
    const running = simulate(options({ sensors: 1, seed: 'isolation', processes: undefined, durationS: 4, rate: 1000, checkinIntervalS: 0.1 }));
    const api = (method: 'GET' | 'PUT', url: string, payload?: object) => test.app.inject({ method, url, headers: as(test.adminToken), payload });
    const id = await eventually('the sensor to register', async () => {
      const found = (await api('GET', `/api/v1/sensor?hostname=${name}`)).json() as { id: number }[];
      return found[0]?.id;
    });
    const record = async () => (await api('GET', `/api/v1/sensor/${id}`)).json() as { is_isolating: boolean; last_checkin_time: string };

    // cbapi's Sensor.isolate(): PUT the request, then read the sensor until it reports isolation.
    assert.equal((await api('PUT', `/api/v1/sensor/${id}`, { network_isolation_enabled: true })).statusCode, 204);
    await eventually('isolation', async () => ((await record()).is_isolating ? true : undefined));
    const isolatedAt = (await record()).last_checkin_time;
    await eventually('a check-in while isolated', async () => ((await record()).last_checkin_time !== isolatedAt ? true : undefined));
    assert.equal((await record()).is_isolating, true);

    // An instruction the simulator has no use for is acknowledged all the same.
    const db = openAppDatabase(test);
    after(() => db.close());
    const store = new SqlSensorsStore(db);
    await store.enqueueInstruction(id, 'restart', undefined, Date.now());
    assert.equal((await api('PUT', `/api/v1/sensor/${id}`, { network_isolation_enabled: false })).statusCode, 204);
    await eventually('the end of isolation', async () => ((await record()).is_isolating ? undefined : true));

    const summary = await running;
    assert.deepEqual(summary.errors, []);
    assert.equal(summary.events_acknowledged, summary.events_sent);
    assert.deepEqual(await store.pendingInstructions(id, Date.now()), [], 'every instruction was acknowledged');
  });

  it('paces a rate-limited run: it takes about as long as its events divided by the rate', async () => {
    // 2 sensors with 20 processes each send about 600 events; at 400 a second that is 1.5 s.
    const rate = 400;
    const began = performance.now();
    const summary = await simulate(options({ sensors: 2, processes: 20, seed: 'paced', rate }));
    const seconds = (performance.now() - began) / 1000;
    assert.deepEqual(summary.errors, []);
    assert.ok(summary.events_sent / rate >= 1, `${summary.events_sent} events are at least a second's worth`);
    // Only the last batch (rate / sensors events) can go out without waiting for its share of time.
    const floor = (summary.events_sent - rate / 2) / rate;
    assert.ok(seconds >= 0.9 * floor, `${summary.events_sent} events at ${rate}/s took ${seconds.toFixed(2)} s, under ${floor.toFixed(2)} s`);
  });

  it('stops a run of unlimited processes after its duration, showing progress while it streams', async () => {
    const progress: SimulationProgress[] = [];
    const began = performance.now();
    const summary = await simulate(options({
      sensors: 2, processes: undefined, durationS: 3, rate: 4000, checkinIntervalS: 0.2, seed: 'timed', onProgress: (p) => progress.push(p),
      // Nothing else ends a run without a process budget: should the duration not, fail rather than hang.
      signal: AbortSignal.timeout(10_000),
    }));
    const seconds = (performance.now() - began) / 1000;
    assert.deepEqual(summary.errors, []);
    assert.equal(summary.events_acknowledged, summary.events_sent);
    assert.ok(summary.elapsed_s >= 3, `streamed for ${summary.elapsed_s} s`);
    // Generous for a loaded CI machine; without the duration the 10 s signal above ends the run.
    assert.ok(seconds < 3 + 6, `ended ${seconds.toFixed(2)} s after it began`);

    // Twice a second: the line a terminal shows is drawn from each report.
    assert.ok(progress.length >= 2, `${progress.length} progress reports`);
    for (const [previous, next] of progress.slice(1).map((p, i) => [progress[i]!, p] as const)) {
      assert.ok(next.elapsed_s > previous.elapsed_s && next.events_sent >= previous.events_sent);
    }
    const last = progress.at(-1)!;
    assert.equal(last.sensors_online, 2);
    assert.ok(last.events_acknowledged > 0 && last.events_acknowledged <= last.events_sent);
    assert.ok(last.events_per_s > 0 && last.events_per_s <= 4000 * 1.5, `${last.events_per_s} events/s under a limit of 4000`);
    const line = describeProgress(last);
    assert.match(line, / 2 sensors online /);
    assert.match(line, new RegExp(` ${last.events_per_s.toLocaleString('en-US')} events/s$`));
    assert.match(line, new RegExp(`${last.events_acknowledged.toLocaleString('en-US')} of ${last.events_sent.toLocaleString('en-US')} events acknowledged`));
    assert.ok(!line.includes('\n'), 'one line, redrawn in place');
  });

  it('checks in over a connection of its own, which its uploads never take', async () => {
    const control = new Set<unknown>();
    const uploads = new Set<unknown>();
    const seen = (req: IncomingMessage) => {
      const isControl = req.url === '/sensor/v1/checkin' || req.url === '/sensor/v1/register';
      (isControl ? control : req.url?.startsWith('/sensor/') ? uploads : new Set()).add(req.socket);
    };
    test.app.server.on('request', seen);
    try {
      const summary = await simulate(options({ sensors: 1, seed: 'own-connection', checkinIntervalS: 0.1 }));

      assert.deepEqual(summary.errors, []);
      assert.ok(summary.checkins > 1 && summary.binaries > 4, `${summary.checkins} check-ins, ${summary.binaries} binaries`);
      assert.equal(control.size, 1, 'registration and every check-in over one connection');
      assert.ok(![...control].some((socket) => uploads.has(socket)), 'no upload on it');
    } finally {
      test.app.server.off('request', seen);
    }
  });

  it('stops uploading binaries at its duration: none starts, and none is retried, after the run ends', async () => {
    // Every binary upload is refused as transient: the sensor retries it, and its batch waits for it.
    const [handler] = test.app.server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
    const binaryUploads: number[] = [];
    test.app.server.removeAllListeners('request');
    test.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.url !== '/sensor/v1/binaries') return handler!(req, res);
      binaryUploads.push(performance.now());
      req.resume();
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"reason":"busy"}');
    });
    try {
      const summary = await simulate(options({ sensors: 1, processes: undefined, durationS: 1, rate: 1000, seed: 'binaries-at-the-end' }));

      assert.ok(binaryUploads.length > 0, 'the batch referenced binaries');
      assert.deepEqual(summary.errors, [], 'an upload given up at the end is not an error');
      assert.equal(summary.events_sent, 0, 'a batch whose binaries were not stored by the end is not sent');
      // The retries went on for two minutes past the end before: the run now ends with its duration.
      assert.ok(summary.elapsed_s < 1 + 5, `streamed for ${summary.elapsed_s} s`);
    } finally {
      test.app.server.removeAllListeners('request');
      test.app.server.on('request', handler!);
    }
  });

  it('fails before sending anything when the API token is wrong', async () => {
    await assert.rejects(simulate(options({ token: '0'.repeat(40) })), /install_code: 401/);
  });

  it('runs as `vigil simulate`, printing the summary as one JSON line and exiting 0 when all was acknowledged', async () => {
    const run = await vigilSimulate(['--server', server, '--token', test.adminToken, '--sensors', '2', '--processes', '25', '--seed', 'cli', '--json']);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim().split('\n').length, 1);
    const summary = JSON.parse(run.stdout) as { ok: boolean; sensors: number; seed: string; events_sent: number; events_acknowledged: number };
    assert.equal(summary.ok, true);
    assert.equal(summary.sensors, 2);
    assert.equal(summary.seed, 'cli');
    assert.equal(summary.events_acknowledged, summary.events_sent);

    const refused = await vigilSimulate(['--server', server, '--token', '0'.repeat(40)]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /^vigil: GET .*\/api\/v1\/group\/1\/install_code: 401/m);
  });
});
