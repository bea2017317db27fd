/**
 * What the matcher (matcher.ts, on the request thread) asks the store's detection reads and what
 * they answer. On the embedded store both sides of the read pool use these types (the handler is
 * match.sqlite.ts).
 */
import type { Predicate } from '../query/analysis.js';
import type { SqlParam } from '../query/compile/fragment.js';
import type { ValueIocType } from '../modules/threat-reports/threat-report.js';

/** One search to match: a watchlist's, or a feed report's query IOC. */
export interface MatchSpec {
  owner: 'watchlist' | 'report';
  /** The watchlist id or the report row. */
  id: number;
  index: 'events' | 'modules';
  /** The compiled condition: over `s` and `p` (events), or the binaries row `b` (modules). */
  sql: string;
  params: readonly SqlParam[];
  /** Catch-up only: documents written at or after this server time; null: all data. */
  fromMs?: number | null;
  /**
   * Events searches, live runs: what a segment must hold to be able to match (anchors.sqlite.ts); null
   * when nothing narrows it, so the search is evaluated on every new segment.
   */
  anchors?: Anchor[] | null;
}

/** Dictionary terms whose postings anchor a search; `processWide`: on any segment of the process. */
export interface TermAnchor {
  kind: 'terms';
  fields: string[];
  /** The condition on `event_terms.value` the compiled search uses. */
  where: { sql: string; params: SqlParam[] };
  processWide: boolean;
  exact: boolean;
}

/** A lower-cased process column's value, tested in memory. */
export interface ColumnAnchor {
  kind: 'column';
  column: 'process_name' | 'parent_name' | 'md5' | 'parent_md5' | 'sha256';
  match: { kind: 'exact' | 'prefix' | 'wildcard'; value: string };
}

export type Anchor = TermAnchor | ColumnAnchor;

export type MatchJob =
  /**
   * Segments written since `fromMs` (server clock): every spec against them, and the feeds' value
   * IOCs against their process and event values. `afterRow` is the highest segment row the last
   * live run saw: rows above it are new, the others updated.
   */
  | { kind: 'live'; fromMs: number; afterRow: number; specs: MatchSpec[]; iocVersion: number }
  /** Each spec over the documents written since its own fromMs. */
  | { kind: 'catch-up'; specs: MatchSpec[] }
  /** The value IOCs of these reports (all when null) over all stored data. */
  | { kind: 'iocs'; reportRows: number[] | null };

/** A document one IOC value of a report was found in. */
export interface IocHit {
  reportRow: number;
  type: ValueIocType;
  value: string;
  segment?: number;
  md5?: string;
}

export interface MatchResult {
  /** The newest segment write (and binary first sight) the run's snapshot holds: the next run's start. */
  throughMs: number;
  binariesThroughMs: number;
  /** The highest segment row the snapshot holds. */
  lastRow: number;
  /** Segments the live run checked. */
  checked: number;
  /** Per spec (same order as asked), the documents it newly found: segment rows, or md5s. */
  found: (number | string)[][];
  iocHits: IocHit[];
}

/** A search's query as the store's jobs run it (match-specs.ts keeps it for a minute). */
export type CompiledSearch = Pick<MatchSpec, 'sql' | 'params' | 'anchors'>;

/**
 * Compiles an analyzed watchlist or report query for the store's jobs: to probe the few segments
 * of a live run (`probe`), or as a search over everything since a cursor (a catch-up).
 */
export type SearchCompiler = (predicate: Predicate, index: MatchSpec['index'], probe: boolean) => CompiledSearch;

/** Where the matcher's searches are compiled and its jobs run: one implementation per database, chosen by the container. */
export interface MatchReads {
  compile: SearchCompiler;
  run(job: MatchJob): Promise<MatchResult>;
}
