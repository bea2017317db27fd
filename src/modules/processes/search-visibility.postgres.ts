/**
 * Keeps the visibility map of the tables process search reads by index alone fresh while events
 * arrive (docs/adr/0027-postgres-search-plans.md, third amendment). The update-order and
 * process-name indexes answer the walks and the time-restricted count without the heap only for
 * rows on pages marked all-visible; the writer's new and updated segments and processes are not
 * marked until a vacuum, and autovacuum comes by at most once a minute (autovacuum_naptime) and
 * then only past a fifth of the table. Until then each index entry of a fresh row costs a heap
 * fetch: after 27 s of bench/search's ingest, 6,186 for `process_name:chrome.exe` in the last day.
 *
 * Segments are vacuumed with their indexes cleaned even for a few dead rows (INDEX_CLEANUP ON): a
 * segment update is never HOT (last_update_ms is indexed), and a page holding a dead row's stub
 * stays unmarked, so PostgreSQL's default, which skips the index pass below 2 % of pages, would
 * leave the fresh segments unmarked. Processes are mostly added, rarely updated (a start event
 * after the first segments): the default marks the new pages without a pass over their thirteen
 * indexes. SKIP_LOCKED leaves a partition being detached or dropped for the next run.
 */
import type { SqlDatabase } from '../../db/database.js';
import type { JobScheduler, ScheduledJob } from '../../jobs/leased-jobs.js';

/** The tables read by index-only scans: segments (every attached partition) and processes. */
const VACUUMS = ['VACUUM (INDEX_CLEANUP ON, SKIP_LOCKED) segments', 'VACUUM (SKIP_LOCKED) processes'];

export async function vacuumSearchTables(db: SqlDatabase): Promise<void> {
  for (const vacuum of VACUUMS) await db.exec(vacuum);
}

/** Once across the servers on the database, every `everySeconds`; none when it is 0. */
export function scheduleSearchVacuum(db: SqlDatabase, jobs: JobScheduler, everySeconds: number): ScheduledJob | undefined {
  if (everySeconds === 0) return undefined;
  return jobs.every('search-visibility-vacuum', everySeconds * 1000, () => vacuumSearchTables(db), { immediately: false });
}
