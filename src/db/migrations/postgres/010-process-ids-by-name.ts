/**
 * PostgreSQL schema version 10: the process-name index carries the process id after the name, so
 * a condition on names lists its processes from the index alone (an index-only scan) instead of
 * one heap page per process: `process_name:chrome.exe` read 5,618 heap pages of processes for its
 * 6,374 ids, and now 67 index pages (docs/adr/0027-postgres-search-plans.md, "Grouped pages and
 * names"). The name alone no longer orders equal names, so it replaces the old index outright.
 */
import type { Migration } from '../types.js';

export const PROCESS_IDS_BY_NAME_MIGRATION: Migration = {
  version: 10,
  name: 'process search: process ids in the process-name index',
  sql: `
    DROP INDEX processes_by_name;
    CREATE INDEX processes_by_name ON processes (process_name, id);
  `,
};
