/**
 * The detection matcher: runs enabled watchlists and feed IOCs against data as it arrives and on
 * schedule, and hands what it finds to the detection sink (which tags, counts and alerts).
 *
 * - Live: after each ingest commit, within `coalesceMs` (commits meanwhile join), one read-pool
 *   job checks the segments written since the last live run against every events search and the
 *   value IOCs. Off the request thread; hits reach the sink well within a second of the commit.
 * - Catch-up: every `catchUpIntervalMs`, at start and right after a watchlist or feed changes,
 *   each search runs over what was written since its cursor (everything, for a new or changed
 *   search; binaries, for modules watchlists and md5 IOCs), and a changed feed's value IOCs over
 *   all stored data.
 *
 * A catch-up pass is a run per search; a live run asked for meanwhile goes between two of them,
 * so a pass over 500 new watchlists does not hold back the hits of new data.
 *
 * Catch-up passes run once across the servers on one database, under the lease WATCHLIST_PASS
 * (docs/adr/0022-jobs-across-servers.md): the scheduled pass on whichever server claims it each
 * period, reading the watchlists and cursors afresh from the database, since another server may
 * have changed them; a pass asked for at start or by a change waits while another server holds
 * the lease and runs after it.
 *
 * Runs are serial, and each finds only documents its search has not tagged yet, so the live and
 * catch-up paths never report a document twice (total_hits and alerts count it once). A search's
 * cursor moves with the live runs only once it has caught up with them (its cursor is at or past
 * where the live run began); cursors are written at most every `cursorWriteMs` and on close.
 */
import type { JobScheduler, ScheduledJob } from '../jobs/leased-jobs.js';
import type { WatchlistRecord } from '../modules/watchlists/watchlists.store.js';
import type { DetectionService } from './detection-sink.js';
import type { CursorAdvance } from './detection.store.js';
import type { IocHit, MatchJob, MatchResult, SearchCompiler } from './match.plan.js';
import { formatCursor, parseCursor, reportSearches, SpecCompiler, type Search } from './match-specs.js';
import { LagRecorder } from './lag.js';

export interface MatcherOptions {
  coalesceMs: number;
  catchUpIntervalMs: number;
  cursorWriteMs?: number;
  /**
   * How long the live runs keep the watchlists and reports they read: another server on the
   * database may change them without this one hearing of it (default 10 s).
   */
  searchRefreshMs?: number;
  /**
   * How long after a watchlist change its catch-up waits: a client creates a watchlist and then
   * turns its alert action on, and hits found in between would tag without alerting.
   */
  changeDelayMs?: number;
}

export interface MatcherDeps {
  run(job: MatchJob): Promise<MatchResult>;
  /** The store's compiler for the searches its jobs run (MatchReads.compile). */
  compile: SearchCompiler;
  sink: DetectionService;
  enabledWatchlists(): Promise<WatchlistRecord[]>;
  /** Runs the catch-up passes once across servers. */
  jobs: JobScheduler;
  now?: () => number;
  /** Failures of a run (the matcher carries on with the next). */
  onError?: (error: unknown) => void;
}

/** Documents per sink call: a catch-up over old data may find many, and each call is one transaction. */
const REPORT_CHUNK = 1000;

/** The lease of catch-up passes, shared by every server on the database. */
export const WATCHLIST_PASS = 'watchlist-pass';

/** Which IOCs a pass matches against all stored data: none (undefined), all (null) or those of some reports. */
interface PassScope {
  iocs?: number[] | null;
}

export class DetectionMatcher {
  private readonly now: () => number;
  private readonly specs: SpecCompiler;
  private readonly lag = new LagRecorder();
  private searches: Search[] | undefined;
  private searchesReadMs = 0;
  private chain: Promise<void> = Promise.resolve();
  private live: { fromMs: number; afterRow: number } | undefined;
  private liveTimer: NodeJS.Timeout | undefined;
  /** A live run was asked for and has not run yet. */
  private liveDue = false;
  /** When the oldest commit the next live run covers was acknowledged. */
  private pendingSinceMs: number | undefined;
  private schedule: ScheduledJob | undefined;
  private changeTimer: NodeJS.Timeout | undefined;
  private feedTimer: NodeJS.Timeout | undefined;
  /** A pass asked for at start or by a change that has not run yet, and the attempt under way. */
  private wanted: PassScope | undefined;
  private attempt: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private lastCursorWriteMs = 0;
  private iocVersion = 0;
  private closed = false;

  constructor(private readonly deps: MatcherDeps, private readonly options: MatcherOptions) {
    this.now = deps.now ?? Date.now;
    this.specs = new SpecCompiler(this.now, deps.compile);
  }

  /** Starts live matching from what is stored now, and runs the first catch-up pass. */
  start(): void {
    this.enqueue(async () => {
      const marks = await this.deps.run({ kind: 'catch-up', specs: [] });
      this.live = { fromMs: marks.throughMs, afterRow: marks.lastRow };
    });
    this.catchUp({ iocs: null });
    const everyMs = this.options.catchUpIntervalMs;
    this.schedule = this.deps.jobs.every(WATCHLIST_PASS, everyMs, () => this.pass({}, true), { immediately: false });
  }

  /** An ingest commit was acknowledged: match it soon. */
  committed(): void {
    if (this.closed || !this.live) return;
    this.pendingSinceMs ??= this.now();
    this.liveTimer ??= setTimeout(() => {
      this.liveTimer = undefined;
      this.liveDue = true;
      this.enqueue(() => this.liveIfDue());
    }, this.options.coalesceMs);
  }

  /** A watchlist was created, changed or deleted: its search runs over the existing data shortly. */
  watchlistsChanged(): void {
    this.searches = undefined;
    clearTimeout(this.changeTimer);
    this.changeTimer = setTimeout(() => this.catchUp(), this.options.changeDelayMs ?? 2000);
  }

  /** A feed was added, synchronized or changed: its IOCs are matched against the existing data shortly. */
  feedsChanged(): void {
    this.searches = undefined;
    this.iocVersion++;
    clearTimeout(this.feedTimer);
    this.feedTimer = setTimeout(() => this.catchUp({ iocs: null }), this.options.changeDelayMs ?? 2000);
  }

  /** Commit-to-hit lag of the live runs so far (ms). */
  lagStats() {
    return this.lag.stats();
  }

  /** Waits for the runs under way and queued, and a pass being claimed (tests and shutdown). */
  async idle(): Promise<void> {
    let seen: [Promise<void>, Promise<void> | undefined] | undefined;
    while (seen?.[0] !== this.chain || seen[1] !== this.attempt) {
      seen = [this.chain, this.attempt];
      await Promise.all(seen);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.schedule?.cancel();
    clearTimeout(this.retryTimer);
    clearTimeout(this.liveTimer);
    clearTimeout(this.changeTimer);
    clearTimeout(this.feedTimer);
    await this.idle();
    if (this.searches) await this.writeCursors(true);
  }

  /** Asks for a pass outside the schedule; it runs as soon as no server holds the pass lease. */
  private catchUp(what: PassScope = {}): void {
    if (this.closed) return;
    this.wanted = this.wanted === undefined ? what : mergeScopes(this.wanted, what);
    this.attempt ??= this.claimWanted().finally(() => (this.attempt = undefined));
  }

  /** Runs the passes asked for until none is left; asks made meanwhile run next. */
  private async claimWanted(): Promise<void> {
    while (this.wanted !== undefined && !this.closed) {
      const what = this.wanted;
      this.wanted = undefined;
      if (await this.deps.jobs.once(WATCHLIST_PASS, 0, () => this.pass(what, false))) continue;
      // Held by a pass elsewhere (or a scheduled one here): try again after the change delay.
      this.wanted = this.wanted === undefined ? what : mergeScopes(this.wanted, what);
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => this.catchUp({}), this.options.changeDelayMs ?? 2000);
      return;
    }
  }

  /** One catch-up pass, after the runs queued; `fresh`: reads the searches and cursors from the database first. */
  private pass(what: PassScope, fresh: boolean): Promise<void> {
    return this.enqueue(async () => {
      if (fresh) {
        await this.writeCursors(true);
        this.searches = undefined;
      }
      for (const search of await this.currentSearches()) {
        await this.liveIfDue();
        await this.catchUpSearch(search);
      }
      await this.liveIfDue();
      if (what.iocs !== undefined) await this.reportIocs(await this.deps.run({ kind: 'iocs', reportRows: what.iocs }));
      await this.writeCursors(true);
      this.specs.prune();
    });
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    if (this.closed) return this.chain;
    this.chain = this.chain.then(task).catch((error: unknown) => this.deps.onError?.(error));
    return this.chain;
  }

  private async currentSearches(): Promise<Search[]> {
    if (this.searches) return this.searches;
    const watchlists: Search[] = (await this.deps.enabledWatchlists()).map((w) => ({
      owner: 'watchlist', id: w.id, index: w.indexType, query: w.searchQuery, stored: w.matchCursor, cursor: parseCursor(w.matchCursor),
    }));
    const reports = (await this.deps.sink.queryReports()).flatMap((r) => reportSearches(r.reportRow, r.queries, r.cursor));
    this.searches = [...watchlists, ...reports];
    this.searchesReadMs = this.now();
    return this.searches;
  }

  /** Runs the live run a commit asked for, if not done yet: catch-up passes call it between searches. */
  private async liveIfDue(): Promise<void> {
    if (!this.liveDue || !this.live) return;
    this.liveDue = false;
    await this.liveRun();
  }

  private async liveRun(): Promise<void> {
    const live = this.live!;
    if (this.searches && this.now() - this.searchesReadMs >= (this.options.searchRefreshMs ?? 10_000)) {
      await this.writeCursors(true);
      this.searches = undefined;
    }
    const since = this.pendingSinceMs;
    this.pendingSinceMs = undefined;
    const searches = (await this.currentSearches()).filter((s) => s.index === 'events');
    const specs = searches.map((s) => this.specs.spec(s, true));
    const runnable = searches.filter((_, i) => specs[i] !== undefined);
    const result = await this.deps.run({
      kind: 'live', fromMs: live.fromMs, afterRow: live.afterRow, specs: specs.filter((s) => s !== undefined), iocVersion: this.iocVersion,
    });
    const ranAtMs = this.now();
    await this.reportFound(runnable, result.found, ranAtMs);
    await this.reportIocs(result);
    for (const search of runnable) {
      if (search.cursor.segments !== null && search.cursor.segments >= live.fromMs) search.cursor.segments = result.throughMs;
    }
    this.live = { fromMs: result.throughMs, afterRow: result.lastRow };
    if (since !== undefined) this.lag.record(this.now() - since);
    await this.writeCursors(false);
  }

  private async catchUpSearch(search: Search): Promise<void> {
    const spec = this.specs.spec(search, false);
    if (!spec) return;
    const result = await this.deps.run({ kind: 'catch-up', specs: [spec] });
    await this.reportFound([search], result.found, this.now());
    if (search.index === 'events') search.cursor.segments = result.throughMs;
    else search.cursor.binaries = result.binariesThroughMs;
  }

  /** Hands each search's new documents to the sink, in chunks. */
  private async reportFound(searches: readonly Search[], found: readonly (number | string)[][], ranAtMs: number): Promise<void> {
    for (const [i, search] of searches.entries()) {
      const documents = found[i] ?? [];
      for (let at = 0; at < documents.length; at += REPORT_CHUNK) {
        const chunk = documents.slice(at, at + REPORT_CHUNK);
        const [segments, binaries] = [chunk.filter((d) => typeof d === 'number'), chunk.filter((d) => typeof d === 'string')];
        if (search.owner === 'watchlist') {
          await this.deps.sink.watchlistRan({ watchlistId: search.id, ranAtMs, segments, binaries });
        } else {
          const hit = { reportRow: search.id, iocType: 'query' as const, iocValue: search.query, atMs: ranAtMs };
          await this.deps.sink.feedHits([...segments.map((segment) => ({ ...hit, segment })), ...binaries.map((md5) => ({ ...hit, md5 }))]);
        }
      }
    }
  }

  private async reportIocs(result: { iocHits: IocHit[] }): Promise<void> {
    const atMs = this.now();
    for (let at = 0; at < result.iocHits.length; at += REPORT_CHUNK) {
      await this.deps.sink.feedHits(result.iocHits.slice(at, at + REPORT_CHUNK).map((hit) => ({
        reportRow: hit.reportRow, iocType: hit.type, iocValue: hit.value, atMs, segment: hit.segment, md5: hit.md5,
        iocAttr: { [`ioc_${hit.type}`]: hit.value },
      })));
    }
  }

  /** Stores the cursors that moved; a report's is the least advanced of its queries'. */
  private async writeCursors(now: boolean): Promise<void> {
    const at = this.now();
    if (!this.searches || (!now && at - this.lastCursorWriteMs < (this.options.cursorWriteMs ?? 2000))) return;
    this.lastCursorWriteMs = at;
    const byOwner = new Map<string, Search[]>();
    for (const search of this.searches) {
      const key = `${search.owner}:${search.id}`;
      byOwner.set(key, [...(byOwner.get(key) ?? []), search]);
    }
    const advances: CursorAdvance[] = [];
    for (const group of byOwner.values()) {
      const least = (k: 'segments' | 'binaries') => {
        const values = group.map((s) => s.cursor[k]);
        return values.some((v) => v === null) ? null : Math.min(...(values as number[]));
      };
      // A cursor only ever says how far every query of its owner got; kinds a search never reads stay as they were.
      const kept = parseCursor(group[0]!.stored);
      const to = formatCursor({
        segments: group.some((s) => s.index === 'events') ? least('segments') : kept.segments,
        binaries: group.some((s) => s.index === 'modules') ? least('binaries') : kept.binaries,
      });
      if (to !== group[0]!.stored) advances.push({ owner: group[0]!.owner, id: group[0]!.id, from: group[0]!.stored, to });
    }
    if (advances.length === 0) return;
    const done = new Set((await this.deps.sink.advanceCursors(advances, at)).map((a) => `${a.owner}:${a.id}`));
    for (const advance of advances) {
      const group = byOwner.get(`${advance.owner}:${advance.id}`)!;
      if (done.has(`${advance.owner}:${advance.id}`)) for (const search of group) search.stored = advance.to;
      else this.searches = undefined;
    }
  }
}

/** Two asks for a pass as one: IOCs of all reports cover any; otherwise the reports of both. */
function mergeScopes(a: PassScope, b: PassScope): PassScope {
  if (a.iocs === undefined) return b;
  if (b.iocs === undefined || a.iocs === null) return a;
  if (b.iocs === null) return b;
  return { iocs: [...new Set([...a.iocs, ...b.iocs])] };
}
