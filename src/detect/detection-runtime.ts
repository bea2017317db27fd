/**
 * Detection as the server runs it: the matcher told of every ingest commit and of every watchlist
 * and feed change, and the scheduled feed synchronization, which like the matcher's catch-up
 * passes runs once across servers (docs/adr/0022-jobs-across-servers.md). Failures of background
 * work are reported as process warnings; the next run tries again.
 */
import type { Config } from '../config/schema.js';
import type { IngestPipeline } from '../ingest/pipeline.js';
import type { JobScheduler } from '../jobs/leased-jobs.js';
import type { FeedsService } from '../modules/feeds/feeds.service.js';
import type { WatchlistsService } from '../modules/watchlists/watchlists.service.js';
import type { DetectionService } from './detection-sink.js';
import type { MatchReads } from './match.plan.js';
import { DetectionMatcher } from './matcher.js';

/** The lease of the scheduled feed synchronization, shared by every server on the database. */
export const FEED_SYNC = 'feed-sync';

export interface DetectionRuntime {
  matcher: DetectionMatcher;
  close(): Promise<void>;
}

export function startDetection(
  config: Config,
  parts: {
    reads: MatchReads; sink: DetectionService; ingest: IngestPipeline; watchlists: WatchlistsService; feeds: FeedsService; jobs: JobScheduler;
  },
): DetectionRuntime {
  const warn = (what: string) => (error: unknown) => process.emitWarning(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  const matcher = new DetectionMatcher({
    run: (job) => parts.reads.run(job),
    compile: parts.reads.compile,
    sink: parts.sink,
    enabledWatchlists: () => parts.watchlists.enabledWatchlists(),
    onError: warn('detection matcher'),
    jobs: parts.jobs,
  }, { coalesceMs: config.detectionCoalesceMs, catchUpIntervalMs: config.watchlistIntervalMinutes * 60_000 });
  if (config.detectionMatcherEnabled) {
    parts.ingest.onCommitted(() => matcher.committed());
    parts.watchlists.onChange(() => matcher.watchlistsChanged());
    parts.feeds.onChange(() => matcher.feedsChanged());
    matcher.start();
  }
  const feedSync = parts.jobs.every(FEED_SYNC, config.feedSyncIntervalMinutes * 60_000, async () => {
    await parts.feeds.synchronizeAll((feedId, error) => warn(`scheduled synchronization of feed ${feedId}`)(error)).catch(warn('feed synchronization'));
  }, { immediately: false });
  return {
    matcher,
    async close() {
      feedSync.cancel();
      await matcher.close();
    },
  };
}
