/**
 * A test app whose own detection matcher is off, beside a matcher the test builds and drives
 * itself: it runs on a one-worker read pool of the app's SQLite file, with the app's real sink,
 * watchlists and job scheduler, so only what the test chooses differs from a server's matcher.
 */
import { join } from 'node:path';
import { SqliteReadPool } from '../../src/db/dialects/sqlite-read-pool.js';
import { SQLITE_FILE } from '../../src/db/open.js';
import type { MatchJob, MatchResult } from '../../src/detect/match.plan.js';
import { compileSqliteSearch } from '../../src/detect/match-specs.sqlite.js';
import { DetectionMatcher, type MatcherOptions } from '../../src/detect/matcher.js';
import { READ_HANDLERS } from '../../src/wiring/sqlite-read-stores.js';
import { startTestApp, type TestApp } from './app.js';

/** Runs a match job on the bed's pool, as the server's matcher would. */
export type RunOnPool = (job: MatchJob) => Promise<MatchResult>;

export interface MatcherBed {
  test: TestApp;
  /** A matcher on the bed; `run`, when given, stands between it and the pool (to watch or slow its jobs). */
  matcher(options: MatcherOptions, run?: (job: MatchJob, runOnPool: RunOnPool) => Promise<MatchResult>): DetectionMatcher;
  close(): Promise<void>;
}

export async function startMatcherBed(): Promise<MatcherBed> {
  const test = await startTestApp({ detectionMatcherEnabled: false });
  const handler = READ_HANDLERS.detectionMatch;
  const pool = new SqliteReadPool(join(test.config.dataDir, SQLITE_FILE), { workers: 1, handlers: { [handler.name]: handler.url } });
  const runOnPool: RunOnPool = (job) => pool.run<MatchResult>(handler.name, job);
  return {
    test,
    matcher: (options, run) => new DetectionMatcher({
      run: run ? (job) => run(job, runOnPool) : runOnPool,
      compile: compileSqliteSearch,
      sink: test.container.services.detection,
      enabledWatchlists: () => test.container.services.watchlists.enabledWatchlists(),
      jobs: test.container.jobs,
    }, options),
    async close() {
      await pool.close();
      await test.close();
    },
  };
}
