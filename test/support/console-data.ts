/**
 * Data for the console's browser tests, put in through the sensor protocol and the API: a host
 * with cmd.exe and its child, a binary, and text planted to run if it were ever taken for HTML.
 */
import type { SensorEvent } from '../../src/ingest/event.schemas.js';
import { as, createUser, type TestApp } from './app.js';
import { cbfeed, writeFeedFile } from './feeds.js';
import { storedSegments } from './processes.js';
import { binaryMetadata, processEvents, registerSensor, uploadBinary, uploadEvents, type TestSensor } from './sensors.js';

export const ANALYST = { username: 'analyst', password: 'correct horse battery staple' };

/** Markup that sets window.__pwned if a page ever parses it as HTML. */
export const PLANTED = {
  cmdline: 'cmd.exe /c "<script>window.__pwned=1</script><img src=x onerror=window.__pwned=2>"',
  filename: 'C:\\Temp\\<img src=x onerror=window.__pwned=3>.txt',
  reportTitle: '<script>window.__pwned=4</script><b onmouseover=window.__pwned=5>Evil report</b>',
};

export const CMD_BINARY = Buffer.from('MZ cmd.exe console test content');
const T0 = Date.parse('2026-11-20T10:00:00.000Z');

export interface ConsoleData {
  sensor: TestSensor;
  md5: string;
  /** How many alerts the watchlist on cmd.exe raised. */
  alerts: number;
}

/** The pid of a process with BUSY_EVENTS file events, C:\\Temp\\f-00000.txt on. */
export const BUSY_PID = 400;
export const BUSY_EVENTS = 10_000;
const UPLOAD_BATCH = 2_500;

function withMd5(events: SensorEvent[], md5: string): SensorEvent[] {
  return events.map((e) => (e.type === 'process_start' ? { ...e, md5 } : e)) as SensorEvent[];
}

export async function seedConsoleData(test: TestApp, feedDir: string): Promise<ConsoleData> {
  await createUser(test, { username: ANALYST.username, password: ANALYST.password, global_admin: true });
  const sensor = await registerSensor(test, { computer_name: 'WIN-TEST-01' });
  const metadata = binaryMetadata(CMD_BINARY, { observed_filename: 'C:\\Windows\\System32\\cmd.exe', company_name: 'Microsoft Corporation' });
  const parent = { pid: 100, start: T0, path: 'C:\\Windows\\System32\\cmd.exe' };
  const hostile: SensorEvent[] = [
    {
      type: 'process_start', ts: T0 + 100, pid: 300, process_start: T0 + 100, path: 'C:\\Windows\\System32\\cmd.exe',
      cmdline: PLANTED.cmdline, username: 'CORP\\mallory', uid: 'S-1-5-21-9', md5: metadata.md5,
    },
    { type: 'filemod', ts: T0 + 101, pid: 300, process_start: T0 + 100, action: 'create', path: PLANTED.filename, file_type: 0 },
  ] as SensorEvent[];
  const events = [...withMd5(processEvents(100, T0), metadata.md5), ...withMd5(processEvents(101, T0 + 5, parent), metadata.md5), ...hostile];
  const uploaded = await uploadEvents(test, sensor, 1, events);
  if (uploaded.statusCode !== 200) throw new Error(`events: ${uploaded.statusCode} ${uploaded.body}`);
  const binary = await uploadBinary(test, sensor, metadata, CMD_BINARY);
  if (binary.statusCode !== 200) throw new Error(`binary: ${binary.statusCode} ${binary.body}`);
  const feedUrl = writeFeedFile(feedDir, 'planted.json', cbfeed('planted', [{ id: 'r1', title: PLANTED.reportTitle, score: 90, iocs: { md5: ['f'.repeat(32)] } }]));
  const feed = await test.app.inject({ method: 'POST', url: '/api/v1/feed', headers: as(test.adminToken), payload: { feed_url: feedUrl } });
  if (feed.statusCode !== 200) throw new Error(`feed: ${feed.statusCode} ${feed.body}`);
  await uploadBusyProcess(test, sensor);
  return { sensor, md5: metadata.md5.toLowerCase(), alerts: await raiseAlerts(test, sensor) };
}

async function uploadBusyProcess(test: TestApp, sensor: TestSensor): Promise<void> {
  const start = T0 + 200;
  const base = { pid: BUSY_PID, process_start: start };
  const events: SensorEvent[] = [
    { type: 'process_start', ts: start, ...base, path: 'C:\\Tools\\busy.exe', cmdline: 'busy.exe', username: 'CORP\\alice', uid: 'S-1-5-21-1', md5: 'e'.repeat(32) },
    ...Array.from({ length: BUSY_EVENTS }, (_, i) => ({
      type: 'filemod', ts: start + 1 + i, ...base, action: 'create', path: `C:\\Temp\\f-${String(i).padStart(5, '0')}.txt`, file_type: 0,
    })),
  ] as SensorEvent[];
  for (let at = 0, sequence = 2; at < events.length; at += UPLOAD_BATCH, sequence++) {
    const uploaded = await uploadEvents(test, sensor, sequence, events.slice(at, at + UPLOAD_BATCH));
    if (uploaded.statusCode !== 200) throw new Error(`busy events: ${uploaded.statusCode} ${uploaded.body}`);
  }
}

/** A watchlist on cmd.exe with its alert action, run over the stored segments as the scheduler would. */
async function raiseAlerts(test: TestApp, sensor: TestSensor): Promise<number> {
  const admin = as(test.adminToken);
  const watchlist = await test.app.inject({ method: 'POST', url: '/api/v1/watchlist', headers: admin, payload: { name: 'Shells', search_query: 'q=process_name%3Acmd.exe' } });
  const watchlistId = watchlist.json().id as number;
  await test.app.inject({ method: 'PUT', url: `/api/v1/watchlist/${watchlistId}/action_type/3`, headers: admin, payload: { enabled: true } });
  let alerts = 0;
  const segments = (await Promise.all([100, 101, 300].map((pid) => storedSegments(test, sensor.id, pid)))).flat();
  for (const [i, segment] of segments.entries()) {
    const outcome = await test.container.services.detection.watchlistRan({ watchlistId, ranAtMs: T0 + 100_000 + i, segments: [segment.segmentRow] });
    alerts += outcome.alerts.length;
  }
  return alerts;
}
