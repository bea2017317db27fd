/**
 * The curve's query set: bench/search's nine queries, plus the event-field wildcards issue 22
 * names (module load, file path, domain, command line), each asked as the console and cbapi ask
 * (a count and the first 100 rows, or facets), and the timing of one through HTTP.
 */
import { performance } from 'node:perf_hooks';

export interface CurveQuery {
  name: string;
  /** Facet requests have their own target (≤ 500 ms) */
  facets?: boolean;
  params: Record<string, string | string[]>;
}

const DAY_MS = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/u, 'Z');

/** The queries, with the time-restricted one's window ending at the dataset's server clock. */
export function curveQueries(endMs: number): CurveQuery[] {
  return [
    { name: 'one term', params: { q: 'process_name:svchost.exe' } },
    { name: 'two terms', params: { q: 'process_name:powershell.exe username:corp\\peggy' } },
    { name: 'leading-wildcard cmdline', params: { q: 'cmdline:*update*' } },
    { name: 'hostname prefix', params: { q: 'hostname:web*' } },
    { name: 'time-restricted', params: { q: 'process_name:chrome.exe', 'cb.min_last_update': iso(endMs - DAY_MS) } },
    { name: 'event field (domain)', params: { q: 'domain:microsoft.com' } },
    { name: 'sorted page at start=10000', params: { q: 'os_type:windows', sort: 'start desc', start: '10000' } },
    { name: 'grouped by process', params: { q: 'process_name:chrome.exe', 'cb.group': 'id' } },
    { name: 'module load wildcard', params: { q: 'modload:*\\ntdll.dll' } },
    { name: 'file path wildcard', params: { q: 'filemod:*\\temp\\*' } },
    { name: 'domain wildcard', params: { q: 'domain:*.google.com' } },
    { name: 'cmdline wildcard, two words', params: { q: 'cmdline:*service* cmdline:*-k*' } },
    { name: 'facets on two fields, all rows', facets: true, params: { q: '', rows: '0', facet: 'true', 'facet.field': ['process_name', 'hostname'] } },
    { name: 'facets on a query', facets: true, params: { q: 'process_name:svchost.exe', rows: '0', facet: 'true', 'facet.field': ['hostname', 'username_full'] } },
  ];
}

export function queryPath(params: Record<string, string | string[]>): string {
  const search = new URLSearchParams({ rows: '100', 'cb.urlver': '1' });
  for (const [key, value] of Object.entries(params)) {
    search.delete(key);
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, item);
  }
  return `/api/v1/process?${search}`;
}

/** A GET through the real HTTP stack: milliseconds to the last byte, and the body. */
export async function timedGet(server: string, token: string, path: string): Promise<{ ms: number; body: string }> {
  const began = performance.now();
  const response = await fetch(`${server}${path}`, { headers: { 'X-Auth-Token': token } });
  const body = await response.text();
  if (!response.ok) throw new Error(`${path}: ${response.status} ${body.slice(0, 300)}`);
  return { ms: performance.now() - began, body };
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
export const round1 = (ms: number) => Math.round(ms * 10) / 10;

export interface Timing {
  median_ms: number;
  p95_ms: number;
  max_ms: number;
}

export function summarize(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median_ms: round1(percentile(sorted, 50)), p95_ms: round1(percentile(sorted, 95)), max_ms: round1(sorted.at(-1)!) };
}
