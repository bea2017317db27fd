/**
 * Killing the server at any moment loses no acknowledged event: sensors upload as fast as they
 * can, the server gets SIGKILL mid-stream, and after a restart every acknowledged batch is there,
 * while retrying the unacknowledged ones stores each exactly once. On the embedded store and on
 * PostgreSQL alike (the compiled CLI: build first).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { PostgresDatabase } from '../src/db/dialects/postgres.js';
import { readSegmentChunks } from '../src/modules/processes/chunk-files.sqlite.js';
import { postgresSegmentChunks } from '../src/modules/processes/process-events.postgres.js';
import { freshMigratedDatabase } from './support/dialects.js';
import { dropTestDatabase } from './support/postgres.js';
import { hostFacts, processEvents } from './support/sensors.js';
import { tempDir } from './support/temp.js';

const BIN = fileURLToPath(new URL('../bin/vigil.js', import.meta.url));

/** What the store holds: events counted in segments, and events read back from their chunks. */
type StoredEvents = () => Promise<{ counted: number; readable: number }>;

const countEvents = (chunks: (string | Buffer)[][]) => chunks.flat().reduce((sum, chunk) => sum + (JSON.parse(chunk.toString()) as unknown[]).length, 0);

function sqliteEvents(dataDir: string): StoredEvents {
  return async () => {
    const db = new Database(join(dataDir, 'vigil.db'), { readonly: true });
    try {
      const counted = (db.prepare('SELECT SUM(event_count) AS n FROM segments').get() as { n: number }).n;
      return { counted, readable: countEvents(readSegmentChunks(db, db.prepare('SELECT id FROM segments').pluck().all() as number[])) };
    } finally {
      db.close();
    }
  };
}

function postgresEvents(url: string): StoredEvents {
  return async () => {
    const db = PostgresDatabase.open(url, { poolSize: 1 });
    try {
      const counted = Number((await db.get<{ n: number }>('SELECT sum(event_count) AS n FROM segments'))!.n);
      const rows = (await db.all<{ id: number }>('SELECT id FROM segments')).map((r) => r.id);
      return { counted, readable: countEvents(await postgresSegmentChunks(db).read(rows)) };
    } finally {
      await db.close();
    }
  };
}

async function startServer(store: string[]) {
  const child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0', ...store, '--log-level', 'info']);
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

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`durability on ${dialect}`, () => {
    const dataDir = tempDir('vigil-kill-');
    let database: { name: string; url: string } | undefined;
    after(async () => {
      if (database) await dropTestDatabase(database.name);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('keeps every acknowledged batch across a SIGKILL, and stores retries once', async () => {
      if (dialect === 'postgres') database = await freshMigratedDatabase();
      const store = ['--data-dir', dataDir, ...(database ? ['--database-url', database.url] : [])];
      const storedEvents = database ? postgresEvents(database.url) : sqliteEvents(dataDir);
      let server = await startServer(store);
      const token = spawnSync(process.execPath, [BIN, 'token', 'admin', ...store], { encoding: 'utf8' }).stdout.trim();
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

      const stored = (await storedEvents()).counted;
      const inFlight = sensors.reduce((sum, s) => sum + [...s.unacknowledged.values()].reduce((a, e) => a + e.length, 0), 0);
      assert.ok(stored >= acknowledged, `stored ${stored} >= acknowledged ${acknowledged}`);
      assert.ok(stored <= acknowledged + inFlight, 'nothing stored that was never sent');

      server = await startServer(store);
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
      const { counted: finalStored, readable } = await storedEvents();
      assert.equal(finalStored, total, 'every batch stored exactly once after the retries');
      assert.equal(readable, total, 'and every stored event can be read back from its chunk');
    });
  });
}
