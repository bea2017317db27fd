/**
 * PostgreSQL schema version 9: two indexes of process search carry the ids their plans look up,
 * so those plans read the index alone (index-only scans) instead of a heap page per row
 * (docs/adr/0027-postgres-search-plans.md, "Amendment"):
 *
 * - the process-name index, (process_name, id): a condition on names lists its processes from it:
 *   `process_name:chrome.exe`, 6,374 ids from 67 index pages instead of 5,618 heap pages;
 * - segments in update order, (last_update_ms, id) with the segment's sensor and process: the
 *   walks from the newest segment learn each segment's process without its heap page (25,000
 *   segments: 127 index pages instead of 19,055 pages).
 *
 * Both replace the indexes of the same columns without the ids, which they serve as well.
 */
import type { Migration } from '../types.js';

export const SEARCH_COVERING_INDEXES_MIGRATION: Migration = {
  version: 9,
  name: 'process search: process ids in the process-name and update-order indexes',
  sql: `
    DROP INDEX processes_by_name;
    CREATE INDEX processes_by_name ON processes (process_name, id);
    DROP INDEX segments_in_update_order;
    CREATE INDEX segments_in_update_order ON segments (last_update_ms, id) INCLUDE (sensor_id, process_id);
  `,
};
