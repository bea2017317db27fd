/**
 * bench/curve/shape: how the curve's store compares with real endpoints — events per process and
 * the share of each event type, in the store generate.ts made and in the Sysmon recordings of
 * /work/shared/fixtures/sysmon (real Windows hosts under attack simulations), plus the store's
 * segment sizes and segments per process.
 *
 *   node --import tsx bench/curve/shape.ts [--dir /tmp/vigil-curve/data] [--sysmon /work/shared/fixtures/sysmon]
 *
 * Sysmon event ids are read as the sensor event types they correspond to: 1 process start, 5 end,
 * 3 and 22 (DNS) network, 7 module load, 8 and 10 cross-process, 2, 11, 15, 23 and 26 file, 12–14
 * registry; the rest (pipes, WMI, driver loads, …) are counted as "other". A process is a
 * ProcessGuid; only Sysmon's own channel is counted. In the store only the generator's sensors
 * are counted, not those a measurement's ingest added (measure.ts).
 */
import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { SQLITE_FILE } from '../../src/db/open.js';
import { CURVE_DIR, readCurveManifest } from './generate.js';

const { values } = parseArgs({
  options: { dir: { type: 'string', default: CURVE_DIR }, sysmon: { type: 'string', default: '/work/shared/fixtures/sysmon' } },
});

const SYSMON_TYPES: Record<number, string> = {
  1: 'process start', 5: 'process end', 3: 'netconn', 22: 'netconn', 7: 'modload', 8: 'crossproc', 10: 'crossproc',
  2: 'filemod', 11: 'filemod', 15: 'filemod', 23: 'filemod', 26: 'filemod', 12: 'regmod', 13: 'regmod', 14: 'regmod',
};

function distribution(counts: number[]): Record<string, number> {
  const sorted = [...counts].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const mean = sorted.reduce((sum, n) => sum + n, 0) / sorted.length;
  return { n: sorted.length, mean: Math.round(mean * 10) / 10, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted.at(-1)! };
}

function shares(byType: Map<string, number>): Record<string, string> {
  const total = [...byType.values()].reduce((sum, n) => sum + n, 0);
  return Object.fromEntries([...byType].sort((a, b) => b[1] - a[1]).map(([type, n]) => [type, `${((n * 100) / total).toFixed(1)} %`]));
}

function sysmonShape(dir: string): unknown {
  const perProcess = new Map<string, number>();
  const byType = new Map<string, number>();
  let events = 0;
  const files = readdirSync(dir).filter((file) => file.endsWith('.jsonl.gz'));
  for (const file of files) {
    for (const line of gunzipSync(readFileSync(join(dir, file))).toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      const event = JSON.parse(line) as { Channel?: string; EventID?: number | string; ProcessGuid?: string; SourceProcessGUID?: string };
      if (!event.Channel?.includes('Sysmon')) continue;
      events++;
      const type = SYSMON_TYPES[Number(event.EventID)] ?? 'other';
      byType.set(type, (byType.get(type) ?? 0) + 1);
      const guid = event.ProcessGuid ?? event.SourceProcessGUID;
      if (guid) perProcess.set(`${file}/${guid}`, (perProcess.get(`${file}/${guid}`) ?? 0) + 1);
    }
  }
  return { recordings: files.length, sysmon_events: events, events_per_process: distribution([...perProcess.values()]), types: shares(byType) };
}

function storeShape(dir: string): unknown {
  const sensors = readCurveManifest(dir)?.sensors;
  if (sensors === undefined) throw new Error(`no curve store in ${dir}`);
  const db = new Database(join(dir, SQLITE_FILE), { readonly: true });
  try {
    const generated = `FROM segments s JOIN processes p ON p.id = s.process_id WHERE p.sensor_id <= ${sensors}`;
    const totals = db.prepare(`SELECT sum(event_count) AS events, sum(filemod_count) AS filemod, sum(regmod_count) AS regmod, sum(netconn_count) AS netconn,
      sum(modload_count) AS modload, sum(childproc_count) AS childproc, sum(crossproc_count) AS crossproc, count(*) AS segments ${generated}`)
      .get() as Record<string, number>;
    const processes = db.prepare('SELECT count(*) FROM processes WHERE sensor_id <= ?').pluck().get(sensors) as number;
    const ended = db.prepare('SELECT count(*) FROM processes WHERE sensor_id <= ? AND end_ms IS NOT NULL').pluck().get(sensors) as number;
    const counted = ['filemod', 'regmod', 'netconn', 'modload', 'childproc', 'crossproc'].reduce((sum, type) => sum + totals[type]!, 0);
    const byType = new Map<string, number>([
      ...['filemod', 'regmod', 'netconn', 'modload', 'childproc', 'crossproc'].map((type) => [type, totals[type]!] as [string, number]),
      ['process start', processes], ['process end', ended],
      ['other', Math.max(0, totals.events! - counted - processes - ended)],
    ]);
    const perProcess = db.prepare(`SELECT sum(s.event_count) AS n, count(*) AS segments ${generated} GROUP BY s.process_id`).raw().all() as [number, number][];
    const perSegment = db.prepare(`SELECT s.event_count ${generated}`).pluck().all() as number[];
    return {
      events: totals.events, processes, segments: totals.segments,
      events_per_process: distribution(perProcess.map(([n]) => n)),
      segments_per_process: distribution(perProcess.map(([, segments]) => segments)),
      events_per_segment: distribution(perSegment),
      types: shares(byType),
    };
  } finally {
    db.close();
  }
}

console.log(JSON.stringify({ store: storeShape(values.dir), sysmon: sysmonShape(values.sysmon) }, null, 2));
