/**
 * A short calibration of the machine, printed beside a benchmark's figures so that a figure from
 * one machine can be read on another (issue 22 point 7): the same work timed here, on the cores
 * the benchmark used, with what is known to move end-to-end costs between two machines of one
 * kind: CPU steal, clock, transparent huge pages, the data dir's file system, the load.
 *
 * `calibrate()` takes about a second. `stealSince(snapshot)` gives the share of CPU time the
 * hypervisor took between a snapshot and now, for the run as a whole.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { Endpoint } from '../../src/sensor/endpoint.js';

export interface Calibration {
  cpu: string;
  /** Current clock of each core as /proc/cpuinfo reports it (a VM often reports the nominal one). */
  cpu_mhz: number[];
  node: string;
  transparent_hugepages: string;
  data_fs: string;
  load_average: number;
  /** Share of CPU time taken by the hypervisor during the calibration. */
  steal_share: number;
  /** JSON.parse of a 2,000-event simulator batch, per event. */
  json_parse_us_per_event: number;
  /** An indexed SQLite insert in one transaction, per row, on a file in `dir` (its writes and commit included). */
  sqlite_insert_us_per_row: number;
  /** The same in memory: the CPU part alone, so that the difference is the file system's. */
  sqlite_insert_memory_us_per_row: number;
  /** gzip level 1 (the sensors' level) of 64 KB of event JSON. */
  gzip_64kb_us: number;
  /**
   * CPU time per JSON.parse on two threads at once over the time on one alone: 1.0 when the two
   * vCPUs are cores of their own, up to ~1.6-2 when they share one (SMT siblings) or the host's
   * other tenants crowd their caches. Steal does not show this; it is CPU time that buys less.
   */
  parallel_cpu_ratio: number;
}

export interface CpuSnapshot {
  total: number;
  steal: number;
}

/** Times the reference work on a scratch file in `dir` (the benchmark's data dir's file system). */
export async function calibrate(dir = tmpdir()): Promise<Calibration> {
  const before = cpuSnapshot();
  const batch = JSON.stringify(new Endpoint({ seed: 'calibration', index: 0, startMs: Date.now() }).take(2000));
  const parseUs = best(() => JSON.parse(batch), 20) / 2000;
  const slice = Buffer.from(batch.slice(0, 64 * 1024));
  const gzipUs = best(() => gzipSync(slice, { level: 1 }), 50);
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cpu_mhz: [...readOr('/proc/cpuinfo', '').matchAll(/^cpu MHz\s*:\s*([\d.]+)/gm)].map((match) => Math.round(Number(match[1]))),
    node: process.version,
    transparent_hugepages: readOr('/sys/kernel/mm/transparent_hugepage/enabled', 'unknown').trim(),
    data_fs: fileSystemOf(dir),
    load_average: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
    json_parse_us_per_event: round(parseUs),
    sqlite_insert_us_per_row: round(sqliteInsertUs(dir)),
    sqlite_insert_memory_us_per_row: round(sqliteInsertUs(undefined)),
    gzip_64kb_us: round(gzipUs),
    parallel_cpu_ratio: await parallelCpuRatio(batch),
    steal_share: stealSince(before),
  };
}

/** One line to print before the figures. */
export async function calibrationLine(dir?: string): Promise<string> {
  return `calibration ${JSON.stringify(await calibrate(dir))}`;
}

export function cpuSnapshot(): CpuSnapshot {
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
}

/** Share of the machine's CPU time the hypervisor took since `before` (0 on bare metal). */
export function stealSince(before: CpuSnapshot): number {
  const now = cpuSnapshot();
  const total = now.total - before.total;
  return total > 0 ? Math.round(((now.steal - before.steal) / total) * 1000) / 1000 : 0;
}

/** A thread that parses `batch` for a second and answers its own CPU µs per parse (/proc/thread-self). */
const PARSER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const cpu = () => { const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / 100; };
const start = cpu();
let parses = 0;
for (const end = Date.now() + 1000; Date.now() < end; parses++) JSON.parse(workerData);
parentPort.postMessage(((cpu() - start) / parses) * 1e6);
`;

async function parallelCpuRatio(batch: string): Promise<number> {
  const parse = () => new Promise<number>((resolve, reject) => {
    const worker = new Worker(PARSER, { eval: true, workerData: batch });
    worker.once('message', resolve).once('error', reject);
  });
  const alone = await parse();
  const together = await Promise.all([parse(), parse()]);
  return round((together[0]! + together[1]!) / 2 / alone);
}

/**
 * The least CPU time (µs, this process) of `rounds` runs: CPU time, not wall time, so that a loaded
 * machine's preemption does not count, and the least, as the least disturbed by other tenants.
 */
function best(work: () => unknown, rounds: number): number {
  let fastest = Infinity;
  for (let i = 0; i < rounds; i++) {
    const start = process.cpuUsage();
    work();
    const used = process.cpuUsage(start);
    fastest = Math.min(fastest, used.user + used.system);
  }
  return fastest;
}

/** Per row, on a scratch file in `dir`, or in memory without one. */
function sqliteInsertUs(dir: string | undefined): number {
  const scratch = dir === undefined ? undefined : mkdtempSync(join(dir, 'vigil-calibration-'));
  try {
    const db = new Database(scratch === undefined ? ':memory:' : join(scratch, 'calibration.db'));
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER, v TEXT); CREATE INDEX t_k ON t (k)');
    const insert = db.prepare('INSERT INTO t (k, v) VALUES (?, ?)');
    const rows = 50_000;
    const loop = db.transaction(() => {
      for (let i = 0; i < rows; i++) insert.run((i * 7919) % rows, 'c:\\windows\\system32\\svchost.exe');
    });
    const us = best(loop, 3) / rows;
    db.close();
    return us;
  } finally {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  }
}

/** The type of the file system holding `dir`, from the longest mount point that contains it. */
function fileSystemOf(dir: string): string {
  let found = { mount: '', type: 'unknown' };
  for (const line of readOr('/proc/mounts', '').split('\n')) {
    const [, mount, type] = line.split(' ');
    if (mount && type && (dir === mount || dir.startsWith(mount.endsWith('/') ? mount : `${mount}/`)) && mount.length >= found.mount.length) {
      found = { mount, type };
    }
  }
  return `${found.type} (${found.mount})`;
}

function readOr(file: string, fallback: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

const round = (value: number) => Math.round(value * 100) / 100;
