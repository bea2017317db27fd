/**
 * The searches the matcher runs, and where each resumes. A search is a watchlist's or a feed
 * report's query IOC, compiled once (and again after a minute, as relative times such as `-24h`
 * move) in two forms: probing the few segments of a live run, or planned as a search for a
 * catch-up. A resume point ("cursor", stored on the watchlist or report) is the newest segment
 * write and binary first sight the last complete run covered: `segments:<ms>,binaries:<ms>`.
 */
import type { QueryIoc } from '../modules/threat-reports/threat-report.js';
import { analyzeWatchlistQuery } from '../modules/watchlists/watchlist-query.js';
import type { IndexType } from '../modules/watchlists/watchlists.store.js';
import type { MatchSpec, SearchCompiler } from './match.plan.js';

export interface Cursor {
  segments: number | null;
  binaries: number | null;
}

export function parseCursor(text: string | null): Cursor {
  const cursor: Cursor = { segments: null, binaries: null };
  for (const part of (text ?? '').split(',')) {
    const [name, value] = part.split(':');
    if ((name === 'segments' || name === 'binaries') && /^\d+$/.test(value ?? '')) cursor[name] = Number(value);
  }
  return cursor;
}

export function formatCursor(cursor: Cursor): string | null {
  const parts = (['segments', 'binaries'] as const).filter((k) => cursor[k] !== null).map((k) => `${k}:${cursor[k]}`);
  return parts.length > 0 ? parts.join(',') : null;
}

/** A search the matcher runs: what it is, for whom, and how far it has run. */
export interface Search {
  owner: 'watchlist' | 'report';
  id: number;
  index: IndexType;
  query: string;
  /** The stored cursor as last read or written. */
  stored: string | null;
  /** How far it has run (ahead of `stored` until written). */
  cursor: Cursor;
}

const RECOMPILE_MS = 60_000;

export class SpecCompiler {
  private readonly compiled = new Map<string, { atMs: number; spec: Omit<MatchSpec, 'owner' | 'id' | 'fromMs'> | null }>();

  constructor(private readonly now: () => number, private readonly compileSearch: SearchCompiler) {}

  /** The search as a spec; undefined when its query cannot be read (it was checked when saved, so only after a language change). */
  spec(search: Search, probe: boolean): MatchSpec | undefined {
    const key = `${search.index}\u0000${probe}\u0000${search.query}`;
    const now = this.now();
    let entry = this.compiled.get(key);
    if (!entry || now - entry.atMs > RECOMPILE_MS) {
      entry = { atMs: now, spec: this.compile(search.query, search.index, probe, now) };
      this.compiled.set(key, entry);
    }
    if (!entry.spec) return undefined;
    const fromMs = search.index === 'events' ? search.cursor.segments : search.cursor.binaries;
    return { owner: search.owner, id: search.id, ...entry.spec, fromMs };
  }

  /** Forgets compilations no longer asked for. */
  prune(): void {
    const now = this.now();
    for (const [key, entry] of this.compiled) if (now - entry.atMs > RECOMPILE_MS) this.compiled.delete(key);
  }

  private compile(query: string, index: IndexType, probe: boolean, now: number): Omit<MatchSpec, 'owner' | 'id' | 'fromMs'> | null {
    try {
      const { predicate } = analyzeWatchlistQuery(query, index, now);
      return { index, ...this.compileSearch(predicate, index, probe) };
    } catch {
      return null;
    }
  }
}

/** A report's query IOCs as searches: one per query, sharing the report's cursor. */
export function reportSearches(reportRow: number, queries: readonly QueryIoc[], cursor: string | null): Search[] {
  return queries.map((q) => ({ owner: 'report', id: reportRow, index: q.index_type, query: q.search_query, stored: cursor, cursor: parseCursor(cursor) }));
}
