/**
 * bench/curve: how search, segment reads and ingest grow with the store (issue 22 points 2 and 3).
 * At each stop the generator (generate.ts, a child process) grows the curve's store to that many
 * events, then measure.ts (another child, so the generator's heap is not in the measured server's
 * process) times the query set idle and under full ingest, segment reads and the ingest rate.
 *
 *   node --import tsx bench/curve/run.ts --events 5M --then 20M --then 50M [--dir /tmp/vigil-curve/data]
 *        [--iterations 20] [--ingest-seconds 20] [--search-thread-nice N]   (and generate.ts's shape options)
 *
 * Resumable: a stop the store already passed is measured again without generating, and each
 * point is appended to results.jsonl beside the store as soon as it is measured; the growth is
 * taken over every point there; `--report` only prints what is there. Prints per stop
 * the figures against issue 22's targets and, per figure, its growth per decade of data (the
 * factor by which it grows for ten times the events, from the first stop to the last).
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCount, SHAPE_OPTIONS } from './generate.js';

const { values } = parseArgs({
  options: {
    ...SHAPE_OPTIONS,
    events: { type: 'string', default: '5M' },
    then: { type: 'string', multiple: true, default: [] },
    iterations: { type: 'string', default: '20' },
    'ingest-seconds': { type: 'string', default: '20' },
    report: { type: 'boolean', default: false },
    'search-thread-nice': { type: 'string' },
  },
});
const stops = values.report ? [] : [values.events, ...values.then];
const here = dirname(fileURLToPath(import.meta.url));
const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: here, encoding: 'utf8' }).trim();
const shapeArgs = ['--dir', values.dir, '--total', values.total, '--sensors', values.sensors, '--days', values.days, '--upload', values.upload,
  '--segment-hours', values['segment-hours'], '--uploads-per-commit', values['uploads-per-commit']];

/** Runs a bench script in a child process; answers its last stdout line as JSON. */
function child<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', join(here, script), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proc.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${script} exited ${code}`));
      resolve(JSON.parse(output.trim().split('\n').at(-1)!) as T);
    });
  });
}

interface Point {
  stop: number;
  commit?: string;
  measured: {
    events: number;
    queries: { query: string; facets: boolean; total_results: number; idle: Timing; under_ingest: Timing }[];
    segment_reads: ({ segment: string; route: string } & Timing)[];
    idle_event_loop_max_stall_ms: number;
    under_ingest_event_loop_max_stall_ms: number;
    idle_process_max_stall_ms: number;
    ingest_alone_events_per_s: number;
    ingest_under_search_events_per_s: number;
    generator_leg: { commit: { first: Rate; last: Rate }; eventsPerS: number };
  };
}
interface Timing { median_ms: number; p95_ms: number; max_ms: number }
interface Rate { eventsPerS: number; cpuUsPerEvent: number }

for (const stop of stops) {
  const generated = await child<{ events: number }>('generate.ts', [...shapeArgs, '--events', stop]);
  process.stderr.write(`store at ${generated.events} events; measuring\n`);
  const nice = values['search-thread-nice'] === undefined ? [] : ['--search-thread-nice', values['search-thread-nice']];
  const measured = await child<Point['measured']>('measure.ts', ['--dir', values.dir, '--iterations', values.iterations, '--ingest-seconds', values['ingest-seconds'], ...nice]);
  const point: Point = { stop: parseCount(stop), measured };
  appendFileSync(join(values.dir, 'results.jsonl'), `${JSON.stringify({ ...point, commit })}\n`);
  report({ ...point, commit });
}
// The curve is every point measured on this store, by this run or an earlier one.
const points = readFileSync(join(values.dir, 'results.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Point);
if (values.report) points.forEach(report);
if (points.length > 1) growth(points[0]!, points.at(-1)!);

function report({ measured: m, commit }: Point): void {
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log(`\n== ${m.events.toLocaleString('en')} events (commit ${commit ?? '?'})`);
  console.table(m.queries.map((q) => {
    const target = q.facets ? q.idle.median_ms <= 500 : q.idle.median_ms <= 100 && q.idle.p95_ms <= 500;
    return {
      query: q.query, matches: q.total_results, median: q.idle.median_ms, p95: q.idle.p95_ms, 'target (50M)': verdict(target),
      'ingest median': q.under_ingest.median_ms, 'ingest p95': q.under_ingest.p95_ms, 'p95 ≤ 2× idle': verdict(q.under_ingest.p95_ms <= 2 * q.idle.p95_ms),
    };
  }));
  console.table(m.segment_reads.map((r) => ({ segment: r.segment, route: r.route, median: r.median_ms, p95: r.p95_ms })));
  const { first, last } = m.generator_leg.commit;
  console.log(`event store commit: ${last.eventsPerS} events/s, ${last.cpuUsPerEvent} µs CPU/event at the leg's end (${first.eventsPerS}, ${first.cpuUsPerEvent} µs at its start)`);
  const loss = 1 - m.ingest_under_search_events_per_s / m.ingest_alone_events_per_s;
  console.log(`ingest: ${m.ingest_alone_events_per_s} events/s alone, ${m.ingest_under_search_events_per_s} under search (${(loss * 100).toFixed(1)} % lost, ${verdict(loss <= 0.15)}; ≥ 100,000: ${verdict(m.ingest_alone_events_per_s >= 100_000)})`);
  console.log(`event loop: largest stall ${m.idle_event_loop_max_stall_ms} ms idle, ${m.under_ingest_event_loop_max_stall_ms} ms under ingest (${verdict(m.under_ingest_event_loop_max_stall_ms <= 50)}); idle process beside it ${m.idle_process_max_stall_ms} ms`);
}

/** Each figure's factor for ten times the events, from a log-log line through two stops. */
function growth(from: Point, to: Point): void {
  const decades = Math.log10(to.measured.events / from.measured.events);
  const perDecade = (a: number, b: number) => Math.round((b / a) ** (1 / decades) * 100) / 100;
  console.log(`\n== growth per decade of data, ${from.measured.events.toLocaleString('en')} → ${to.measured.events.toLocaleString('en')} events`);
  console.table([
    ...from.measured.queries.map((q, i) => ({
      figure: `${q.query}: median`, from: q.idle.median_ms, to: to.measured.queries[i]!.idle.median_ms, per_decade: perDecade(q.idle.median_ms, to.measured.queries[i]!.idle.median_ms),
    })),
    ...from.measured.segment_reads.map((r, i) => ({
      figure: `${r.segment} ${r.route}: median`, from: r.median_ms, to: to.measured.segment_reads[i]!.median_ms, per_decade: perDecade(r.median_ms, to.measured.segment_reads[i]!.median_ms),
    })),
    {
      figure: 'event store µs CPU/event', from: from.measured.generator_leg.commit.last.cpuUsPerEvent, to: to.measured.generator_leg.commit.last.cpuUsPerEvent,
      per_decade: perDecade(from.measured.generator_leg.commit.last.cpuUsPerEvent, to.measured.generator_leg.commit.last.cpuUsPerEvent),
    },
    {
      figure: 'ingest alone, events/s', from: from.measured.ingest_alone_events_per_s, to: to.measured.ingest_alone_events_per_s,
      per_decade: perDecade(from.measured.ingest_alone_events_per_s, to.measured.ingest_alone_events_per_s),
    },
  ]);
}
