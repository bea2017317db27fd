/**
 * bench/ingest: end-to-end events/s from `vigil simulate` over HTTPS into `vigil serve` (every
 * search index maintained), on the embedded store or on PostgreSQL, with the servers' peak RSS
 * sampled each second.
 *
 *   npm run build && node --import tsx bench/ingest/run.ts [--sensors 32] [--duration 300] [--batch-size 2000] [--no-gzip]
 *   (real sensors' small batches, issue 22 point 6: --sensors 1000 --batch-size 100)
 *     [--server-flags="--max-semi-space-size=64"]
 *     [--store postgres [--database-url postgres://…] [--servers 2]]
 *     [--compare [--servers 2]] [--pg-statements] [--pg-setting name=value …] [--pg-defaults]
 *
 * `--store postgres` runs `vigil serve --database-url`: on an embedded PostgreSQL the run starts
 * with PostgreSQL's durable defaults (bench/pg-ingest/server.ts), whose processes' CPU counts in the
 * CPU per event, or on the existing, empty database `--database-url` names (its CPU not counted).
 * `--servers N` runs N servers on the one database, the simulator's sensors split between them.
 * `--compare` runs the embedded store, then PostgreSQL with one server, then (with `--servers` > 1)
 * with that many, in one session, and prints each run's line and PostgreSQL's rate as a fraction
 * of the embedded store's. `--pg-statements` adds PostgreSQL's time per statement and its WAL
 * figures (statements.ts). The embedded PostgreSQL runs with the ingest settings of
 * docs/operations.md (INGEST_SETTINGS, bench/pg-ingest/server.ts); `--pg-defaults` runs it with
 * PostgreSQL's own instead, and `--pg-setting` sets one more (or overrides one), to measure each.
 *
 * Prints one JSON line a run: events/s, p50/p99 batch acknowledgement latency, the slowest
 * minute's events/s as the server counted them (`GET /api/v1/ingest/stats` every 10 s), peak
 * server RSS, the CPU time per event of servers (also their main (request) threads alone: HTTP,
 * TLS, decoding and preparation, and on the embedded store the event writer's thread), PostgreSQL
 * and simulators, and the machine's load average at start and end. `--server-flags` are Node
 * options for the server process, to measure V8 settings end to end.
 */
import { parseArgs } from 'node:util';
import { runIngest, type IngestRunOptions } from './session.js';
import { calibrationLine } from '../support/calibration.js';
import { INGEST_SETTINGS } from '../pg-ingest/server.js';

const { values } = parseArgs({
  options: {
    sensors: { type: 'string', default: '32' },
    duration: { type: 'string', default: '300' },
    'batch-size': { type: 'string', default: '2000' },
    seed: { type: 'string', default: '1' },
    'no-gzip': { type: 'boolean', default: false },
    'server-flags': { type: 'string', default: '' },
    store: { type: 'string', default: 'embedded' },
    'database-url': { type: 'string' },
    servers: { type: 'string', default: '1' },
    compare: { type: 'boolean', default: false },
    'pg-statements': { type: 'boolean', default: false },
    'pg-setting': { type: 'string', multiple: true, default: [] },
    'pg-defaults': { type: 'boolean', default: false },
  },
});
// The machine's calibration, to read the figures below on another machine (bench/support/calibration.ts).
console.log(await calibrationLine());
if (values.store !== 'embedded' && values.store !== 'postgres') throw new Error('--store is embedded or postgres');
// Real sensors come from as many addresses; the simulator's all come from one, and past the default
// cap per address (512) the server closes the newest connections: `--sensors 1000` (issue 22 point
// 6's small batches) failed with ECONNRESET.
process.env.VIGIL_MAX_CONNECTIONS_PER_ADDRESS = '16384';

const options: IngestRunOptions = {
  store: values.store,
  databaseUrl: values['database-url'],
  servers: Number(values.servers),
  sensors: Number(values.sensors),
  durationS: Number(values.duration),
  batchSize: Number(values['batch-size']),
  seed: values.seed!,
  gzip: !values['no-gzip'],
  serverFlags: values['server-flags']!.split(' ').filter((flag) => flag !== ''),
  pgStatements: values['pg-statements'],
  pgSettings: {
    ...(values['pg-defaults'] ? {} : INGEST_SETTINGS),
    ...Object.fromEntries(values['pg-setting']!.map((setting) => setting.split('=') as [string, string])),
  },
};

if (!values.compare) {
  console.log(JSON.stringify(await runIngest(options)));
} else {
  const embedded = await runIngest({ ...options, store: 'embedded', servers: 1 });
  console.log(JSON.stringify(embedded));
  const runs = [...new Set([1, options.servers])];
  for (const servers of runs) {
    const postgres = await runIngest({ ...options, store: 'postgres', servers });
    console.log(JSON.stringify(postgres));
    const ratio = Number(postgres.events_per_s) / Number(embedded.events_per_s);
    console.log(`postgres with ${servers} server(s): ${postgres.events_per_s} events/s against embedded ${embedded.events_per_s}: ${ratio.toFixed(2)}×`);
  }
}
