/**
 * Killing the server at any moment loses no acknowledged event: sensors upload as fast as they
 * can, the server gets SIGKILL mid-stream, and after a restart every acknowledged batch is there,
 * while retrying the unacknowledged ones stores each exactly once.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { readSegmentChunks } from '../src/modules/processes/chunk-files.sqlite.js';
import { hostFacts, processEvents } from './support/sensors.js';
import { tempDir } from './support/temp.js';

const BIN = fileURLToPath(new URL('../bin/vigil.js', import.meta.url));

async function startServer(dataDir: string) {
  const child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--data-dir', dataDir, '--log-level', 'info']);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)".*Vigil is listening/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
  });
  return { child, url, exited: new Promise((resolve) => child.on('exit', resolve)) };
}

interface Sensor {
  auth: string;
  nextSequence: number;
  acknowledged: Map<number, number>;
  unacknowledged: Map<number, unknown[]>;
}

describe('durability', () => {
  const dataDir = tempDir('vigil-kill-');
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps every acknowledged batch across a SIGKILL, and stores retries once', async () => {
    let server = await startServer(dataDir);
    const token = spawnSync(process.execPath, [BIN, 'token', 'admin', '--data-dir', dataDir], { encoding: 'utf8' }).stdout.trim();
    const codeReply = await fetch(`${server.url}/api/v1/group/1/install_code`, { headers: { 'X-Auth-Token': token } });
    const code = ((await codeReply.json()) as { install_code: string }).install_code;
    const sensors: Sensor[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(`${server.url}/sensor/v1/register`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ install_code: code, ...hostFacts({ computer_name: `KILL-${i}` }) }),
      });
      const { sensor_id: id, sensor_secret: secret } = (await response.json()) as { sensor_id: number; sensor_secret: string };
      sensors.push({ auth: `Sensor ${id}:${secret}`, nextSequence: 1, acknowledged: new Map(), unacknowledged: new Map() });
    }

    const upload = async (url: string, sensor: Sensor, sequence: number, events: unknown[]) => {
      const response = await fetch(`${url}/sensor/v1/events`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: sensor.auth },
        body: JSON.stringify({ sequence, events }),
      });
      return (await response.json()) as { accepted: number; duplicate: boolean };
    };
    const run = async (sensor: Sensor, index: number) => {
      for (;;) {
        const sequence = sensor.nextSequence;
        const events = Array.from({ length: 50 }, (_, p) => processEvents(10_000 * index + 100 * sequence + p, 1_700_000_000_000 + sequence * 1000 + p)).flat();
        sensor.unacknowledged.set(sequence, events);
        try {
          const reply = await upload(server.url, sensor, sequence, events);
          sensor.acknowledged.set(sequence, reply.accepted);
          sensor.unacknowledged.delete(sequence);
          sensor.nextSequence++;
        } catch {
          return;
        }
      }
    };
    const uploading = Promise.all(sensors.map(run));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    server.child.kill('SIGKILL');
    await uploading;
    await server.exited;
    const acknowledged = sensors.reduce((sum, s) => sum + [...s.acknowledged.values()].reduce((a, b) => a + b, 0), 0);
    assert.ok(acknowledged > 1000, `enough traffic before the kill (${acknowledged} events acknowledged)`);

    const db = new Database(join(dataDir, 'vigil.db'), { readonly: true });
    const stored = (db.prepare('SELECT SUM(event_count) AS n FROM segments').get() as { n: number }).n;
    db.close();
    const inFlight = sensors.reduce((sum, s) => sum + [...s.unacknowledged.values()].reduce((a, e) => a + e.length, 0), 0);
    assert.ok(stored >= acknowledged, `stored ${stored} >= acknowledged ${acknowledged}`);
    assert.ok(stored <= acknowledged + inFlight, 'nothing stored that was never sent');

    server = await startServer(dataDir);
    try {
      for (const sensor of sensors) {
        for (const [sequence, events] of sensor.unacknowledged) {
          const reply = await upload(server.url, sensor, sequence, events);
          sensor.acknowledged.set(sequence, reply.duplicate ? events.length : reply.accepted);
        }
      }
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const total = sensors.reduce((sum, s) => sum + [...s.acknowledged.values()].reduce((a, b) => a + b, 0), 0);
    const after = new Database(join(dataDir, 'vigil.db'), { readonly: true });
    const finalStored = (after.prepare('SELECT SUM(event_count) AS n FROM segments').get() as { n: number }).n;
    const segmentRows = after.prepare('SELECT id FROM segments').pluck().all() as number[];
    const readable = readSegmentChunks(after, segmentRows).flat().reduce((sum, chunk) => sum + (JSON.parse(chunk.toString()) as unknown[]).length, 0);
    after.close();
    assert.equal(finalStored, total, 'every batch stored exactly once after the retries');
    assert.equal(readable, total, 'and every stored event can be read back from its chunk');
  });
});
