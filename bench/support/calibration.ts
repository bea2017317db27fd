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
import { performance } from 'node:perf_hooks';
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
  /** An indexed SQLite insert in one transaction, per row, on a file in `dir`. */
  sqlite_insert_us_per_row: number;
  /** gzip level 1 (the sensors' level) of 64 KB of event JSON. */
  gzip_64kb_us: number;
}

export interface CpuSnapshot {
  total: number;
  steal: number;
}

/** Times the reference work on a scratch file in `dir` (the benchmark's data dir's file system). */
export function calibrate(dir = tmpdir()): Calibration {
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
    gzip_64kb_us: round(gzipUs),
    steal_share: stealSince(before),
  };
}

/** One line to print before the figures. */
export function calibrationLine(dir?: string): string {
  return `calibration ${JSON.stringify(calibrate(dir))}`;
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

/** The fastest of `rounds` runs, in µs: the least disturbed by whatever else the machine runs. */
function best(work: () => unknown, rounds: number): number {
  let fastest = Infinity;
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    work();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest * 1000;
}

function sqliteInsertUs(dir: string): number {
  const scratch = mkdtempSync(join(dir, 'vigil-calibration-'));
  try {
    const db = new Database(join(scratch, 'calibration.db'));
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
    rmSync(scratch, { recursive: true, force: true });
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
