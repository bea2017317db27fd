/**
 * Whole `vigil serve` processes (the built CLI: `npm run build` first) on one fresh PostgreSQL
 * database, as an operator runs several servers: each has a data dir of its own and all are given
 * the first one's secret key file (ADR 0020). Analysts and sensors reach them over real HTTP
 * with fetch, so nothing passes between the servers but the database.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckinBody, CheckinReply, RegisterBody } from '../../src/modules/sensors/sensor-protocol.schemas.js';
import { dropTestDatabase, freshTestDatabase } from './postgres.js';
import { hostFacts } from './sensors.js';
import { tempDir } from './temp.js';
import { startServer, type Server } from './vigil-cli.js';

export interface Cluster {
  database: { name: string; url: string };
  /** The bootstrap admin's token, written by the first server into its data dir. */
  adminToken: string;
  servers: Server[];
  /** Starts one more server on the database; `env` adds VIGIL_* settings. */
  start(env?: Record<string, string>): Promise<Server>;
  /** Stops the servers still running (SIGTERM) and drops the database. */
  close(): Promise<void>;
}

export async function startCluster(count: number, env: Record<string, string> = {}): Promise<Cluster> {
  const database = await freshTestDatabase('empty', async () => undefined);
  const dirs: string[] = [];
  const servers: Server[] = [];
  let keyFile: string | undefined;
  const start = async (more: Record<string, string> = {}) => {
    const dataDir = tempDir('vigil-cluster-');
    dirs.push(dataDir);
    const args = ['--http', '--database-url', database.url, '--data-dir', dataDir, ...(keyFile ? ['--secret-key-file', keyFile] : [])];
    const server = await startServer(args, { ...env, ...more });
    keyFile ??= join(dataDir, 'secrets.key');
    servers.push(server);
    return server;
  };
  // The first start creates the key and the admin; the others then start side by side.
  await start();
  const adminToken = readFileSync(join(dirs[0]!, 'admin-token.txt'), 'utf8').trim();
  await Promise.all(Array.from({ length: count - 1 }, () => start()));
  return {
    database, adminToken, servers, start,
    async close() {
      for (const server of servers) {
        if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
        await server.exited;
      }
      await dropTestDatabase(database.name);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Kills a server at once, as a crash or `kill -9` does: nothing of it gets to run after. */
export async function killHard(server: Server): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

export interface Answer {
  status: number;
  headers: Headers;
  // Tests read what they check from the JSON they expect.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the text itself is the body.
  }
  return { status: response.status, headers: response.headers, body };
}

/** An analyst's call to one server with an API token. */
export async function call(server: Server, token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  return answer(await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-auth-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }));
}

export interface HttpSensor {
  id: number;
  authorization: string;
}

/** Registers a sensor on `server` with group 1's install code, read there over the API. */
export async function registerSensor(server: Server, adminToken: string, facts: Partial<RegisterBody> = {}): Promise<HttpSensor> {
  const code = await call(server, adminToken, 'GET', '/api/v1/group/1/install_code');
  if (code.status !== 200) throw new Error(`install code: ${code.status} ${JSON.stringify(code.body)}`);
  const registered = await sensorCall(server, undefined, '/sensor/v1/register', { install_code: code.body.install_code, ...hostFacts(facts) });
  if (registered.status !== 200) throw new Error(`register: ${registered.status} ${JSON.stringify(registered.body)}`);
  const { sensor_id: id, sensor_secret: secret } = registered.body as { sensor_id: number; sensor_secret: string };
  return { id, authorization: `Sensor ${id}:${secret}` };
}

async function sensorCall(server: Server, sensor: HttpSensor | undefined, path: string, body: unknown): Promise<Answer> {
  return answer(await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(sensor ? { authorization: sensor.authorization } : {}) },
    body: JSON.stringify(body),
  }));
}

/** One check-in on `server`, as the sensor's clock says now. */
export async function checkinOn(server: Server, sensor: HttpSensor, body: Partial<CheckinBody> = {}): Promise<Omit<Answer, 'body'> & { body: CheckinReply }> {
  const answered = await sensorCall(server, sensor, '/sensor/v1/checkin', { sensor_time: Date.now(), ...body });
  return { ...answered, body: answered.body as CheckinReply };
}

/** One event batch uploaded to `server`. */
export function uploadOn(server: Server, sensor: HttpSensor, sequence: number, events: readonly unknown[]): Promise<Answer> {
  return sensorCall(server, sensor, '/sensor/v1/events', { sequence, events });
}

/** Calls `read` until `done` holds of its result or `deadlineMs` passes; the last result and when it held. */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, deadlineMs: number, everyMs = 20): Promise<{ value: T; ok: boolean }> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await read();
    if (done(value)) return { value, ok: true };
    if (Date.now() >= end) return { value, ok: false };
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
