/**
 * The server's resident memory split by what holds it, from /proc/<pid>/smaps: anonymous memory
 * (V8's heaps, SQLite's page caches, buffers: what a cache bound limits) against pages of files
 * mapped into the process (the read connections' mmap of the database: the kernel's page cache,
 * counted in RSS but given back under memory pressure), and, from the probe the server loads
 * (memory-probe.mjs), its main thread's V8 heap.
 */
import { existsSync, readFileSync } from 'node:fs';

export interface MemorySample {
  at_ms: number;
  rss_mb: number;
  anon_mb: number;
  /** Resident pages of the database files mapped by the read connections. */
  database_mapped_mb: number;
  other_files_mb: number;
  /** The main thread's V8 heap in use, and memory outside V8 it accounts for (Buffers). */
  main_heap_used_mb?: number | undefined;
  external_mb?: number | undefined;
}

const mb = (kb: number) => Math.round(kb / 1024);

export function sampleMemory(pid: number, probeFile: string): MemorySample {
  let anon = 0;
  let database = 0;
  let files = 0;
  let mapping = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      mapping = header[1] ?? '';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    const kb = Number(rss[1]);
    if (mapping === '' || mapping.startsWith('[')) anon += kb;
    else if (/\.db(-shm|-wal)?$/.test(mapping) || mapping.includes('/vigil.db')) database += kb;
    else files += kb;
  }
  const probe = lastProbe(probeFile);
  return {
    at_ms: Date.now(), rss_mb: mb(anon + database + files), anon_mb: mb(anon), database_mapped_mb: mb(database), other_files_mb: mb(files),
    main_heap_used_mb: probe && Math.round(probe.heapUsed / 2 ** 20), external_mb: probe && Math.round(probe.external / 2 ** 20),
  };
}

function lastProbe(file: string): { heapUsed: number; external: number } | undefined {
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  return lines.length && lines.at(-1) ? (JSON.parse(lines.at(-1)!) as { heapUsed: number; external: number }) : undefined;
}

/** Least-squares slope of RSS over time, in MB per 10 minutes. */
export function slopePer10Min(samples: readonly MemorySample[]): number {
  if (samples.length < 2) return 0;
  const xs = samples.map((s) => s.at_ms / 600_000);
  const ys = samples.map((s) => s.rss_mb);
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : Math.round((num / den) * 10) / 10;
}
