/**
 * The server's resident memory split by what holds it, from /proc/<pid>/smaps: anonymous memory
 * (V8's heaps, SQLite's page caches, buffers: what the machine cannot reclaim, and what the soak's
 * target is judged on, ADR 0039) against pages of files mapped into the process (the search
 * connections' mmap of the database: the kernel's page cache, counted in RSS but given back under
 * memory pressure). Anonymous memory is split further: glibc's malloc arenas (the main one is
 * `[heap]`; each other is a 64 MB-aligned mapping of at most 64 MB), the rest (V8's pages, large
 * buffers mapped on their own, stacks); and, from the probe every thread loads (memory-probe.mjs),
 * each thread's V8 heap in use and committed and the memory outside V8 it accounts for.
 */
import { existsSync, readFileSync } from 'node:fs';

export interface ThreadMemory {
  heap_used_mb: number;
  heap_committed_mb: number;
  /** Memory outside V8's heap the thread's objects hold (Buffers, the driver's objects). */
  external_mb: number;
}

export interface MemorySample {
  at_ms: number;
  rss_mb: number;
  anon_mb: number;
  /** Resident pages of the database files mapped by the search connections. */
  database_mapped_mb: number;
  other_files_mb: number;
  /** Anonymous memory in glibc's malloc arenas: SQLite's page caches, zlib, the driver, Node's own. */
  malloc_arenas_mb: number;
  threads: number;
  /** Each probed thread's last report, by name (`sqlite-read#3`: thread id when names repeat). */
  by_thread?: Record<string, ThreadMemory> | undefined;
  /** Sum of the threads' committed V8 heaps. */
  v8_committed_mb?: number | undefined;
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const ARENA_BYTES = 64 * 2 ** 20;

export function sampleMemory(pid: number, probeFile: string): MemorySample {
  let anon = 0;
  let arenas = 0;
  let database = 0;
  let files = 0;
  let mapping = { name: '', start: 0n, size: 0n };
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      const start = BigInt(`0x${header[1]}`);
      mapping = { name: header[3] ?? '', start, size: BigInt(`0x${header[2]}`) - start };
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (!rss) continue;
    const bytes = Number(rss[1]) * 1024;
    if (mapping.name === '' || mapping.name.startsWith('[')) {
      anon += bytes;
      if (mapping.name === '[heap]' || (mapping.name === '' && isArenaHeap(mapping))) arenas += bytes;
    } else if (/\.db(-shm|-wal)?$/.test(mapping.name) || mapping.name.includes('/vigil.db')) database += bytes;
    else files += bytes;
  }
  const byThread = lastReports(probeFile);
  const threads = Object.values(byThread ?? {});
  return {
    at_ms: Date.now(), rss_mb: mb(anon + database + files), anon_mb: mb(anon), database_mapped_mb: mb(database), other_files_mb: mb(files),
    malloc_arenas_mb: mb(arenas), threads: threadCount(pid), by_thread: byThread,
    v8_committed_mb: byThread && threads.reduce((sum, t) => sum + t.heap_committed_mb, 0),
  };
}

/** glibc maps each arena but the main one as a 64 MB-aligned heap of at most 64 MB (HEAP_MAX_SIZE). */
function isArenaHeap(mapping: { start: bigint; size: bigint }): boolean {
  return mapping.start % BigInt(ARENA_BYTES) === 0n && mapping.size <= BigInt(ARENA_BYTES);
}

function threadCount(pid: number): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
}

interface ProbeReport { thread: string; thread_id: number; heap_used: number; heap_committed: number; external: number }

function lastReports(file: string): Record<string, ThreadMemory> | undefined {
  if (!existsSync(file)) return undefined;
  const latest = new Map<number, ProbeReport>();
  for (const line of readFileSync(file, 'utf8').trim().split('\n').slice(-200)) {
    if (line === '') continue;
    const report = JSON.parse(line) as ProbeReport;
    latest.set(report.thread_id, report);
  }
  const names = [...latest.values()].map((r) => r.thread);
  return Object.fromEntries([...latest.values()].sort((a, b) => a.thread_id - b.thread_id).map((r) => [
    names.filter((n) => n === r.thread).length > 1 ? `${r.thread}#${r.thread_id}` : r.thread,
    { heap_used_mb: mb(r.heap_used), heap_committed_mb: mb(r.heap_committed), external_mb: mb(r.external) },
  ]));
}

/** Least-squares slope of `figure` over time, in MB per 10 minutes. */
export function slopePer10Min(samples: readonly MemorySample[], figure: (sample: MemorySample) => number): number {
  if (samples.length < 2) return 0;
  const xs = samples.map((s) => s.at_ms / 600_000);
  const ys = samples.map(figure);
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
