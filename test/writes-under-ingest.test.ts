/**
 * Writes of the analyst API and of sensor registration while sensors upload at full rate: the
 * event writer thread then holds the SQLite write lock most of the time, and no other write may
 * fail because of it (issue 17). A real listening server, the simulator in this process, and the
 * server's own ingest counters as the judge of what arrived.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { simulate, type SimulationProgress } from '../src/sensor/simulator.js';
import { startListeningTestApp, type ListeningTestApp } from './support/app.js';
import { hostFacts } from './support/sensors.js';

interface Outcome {
  what: string;
  status: number;
  body: string;
}

const REGISTRATIONS = 25;
const OBJECTS_OF_EACH_KIND = 6;

describe('writes while sensors upload at full rate', () => {
  let test: ListeningTestApp;
  before(async () => {
    test = await startListeningTestApp();
  });
  after(() => test.close());

  async function call(what: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Outcome> {
    const response = await fetch(`${test.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-auth-token': test.adminToken, ...headers },
      body: JSON.stringify(body),
    });
    return { what, status: response.status, body: (await response.text()).slice(0, 200) };
  }

  async function installCode(): Promise<string> {
    const response = await fetch(`${test.url}/api/v1/group/1/install_code`, { headers: { 'x-auth-token': test.adminToken } });
    assert.equal(response.status, 200);
    return ((await response.json()) as { install_code: string }).install_code;
  }

  /** Every write an analyst or a new sensor makes, all at once. */
  async function writeEverything(code: string, round: number): Promise<Outcome[]> {
    const calls: Promise<Outcome>[] = [];
    for (let i = 0; i < REGISTRATIONS; i++) {
      const name = `NEW-${round}-${i}`;
      calls.push(call(`register ${name}`, 'POST', '/sensor/v1/register', { install_code: code, ...hostFacts({ computer_name: name }) }));
    }
    for (let i = 0; i < OBJECTS_OF_EACH_KIND; i++) {
      const name = `r${round}-${i}`;
      calls.push(call(`site ${name}`, 'POST', '/api/site', { id: null, name: `Site ${name}` }));
      calls.push(call(`group ${name}`, 'POST', '/api/group', { id: null, name: `Group ${name}`, site_id: 1 }));
      calls.push(call(`watchlist ${name}`, 'POST', '/api/v1/watchlist', { name: `Watchlist ${name}`, search_query: `q=process_name:${name}.exe` }));
      calls.push(call(`user ${name}`, 'POST', '/api/user', { username: `user-${name}`, first_name: 'U', last_name: name, email: `${name}@example.com`, global_admin: false, teams: [] }));
    }
    return Promise.all(calls);
  }

  it('every registration and object creation succeeds, and the upload loses nothing', async () => {
    let latest: SimulationProgress | undefined;
    const stop = new AbortController();
    const upload = simulate({
      server: test.url, token: test.adminToken, sensors: 4, seed: 'lock', batchSize: 2000, checkinIntervalS: 0.5,
      signal: stop.signal, onProgress: (progress) => (latest = progress),
    });
    const safety = setTimeout(() => stop.abort(), 30_000);
    try {
      while ((latest?.events_acknowledged ?? 0) === 0) await sleep(50);
      const code = await installCode();
      const outcomes: Outcome[] = [];
      for (let round = 0; round < 3; round++) outcomes.push(...(await writeEverything(code, round)));
      const acknowledgedDuringWrites = latest!.events_acknowledged;
      stop.abort();
      const summary = await upload;

      assert.deepEqual(outcomes.filter((outcome) => outcome.status !== 200), []);
      assert.deepEqual(summary.errors, []);
      assert.equal(summary.checkin_failures, 0);
      assert.equal(summary.events_acknowledged, summary.events_sent);
      assert.ok(acknowledgedDuringWrites > 0 && summary.events_sent > acknowledgedDuringWrites, 'events streamed throughout the writes');
      const stats = await fetch(`${test.url}/api/v1/ingest/stats`, { headers: { 'x-auth-token': test.adminToken } });
      assert.equal(((await stats.json()) as { events_accepted: number }).events_accepted, summary.events_sent);
    } finally {
      clearTimeout(safety);
      stop.abort();
      await upload.catch(() => undefined);
    }
  });
});
