/**
 * PostgreSQL schema version 11: the process-name tally's triggers (migration 6) look each counted
 * process up by its key instead of joining their rows to `processes`. A commit adds hundreds of
 * per-process counts, and for the join PostgreSQL hashed the whole processes table on every commit
 * until it held some 50,000 processes; `LIMIT 1` inside LATERAL, which the planner does not flatten
 * into a join, keeps one primary-key probe per row (the writer's own reads, event-store.reads.postgres.ts,
 * had the same plan). PostgreSQL time of the counts' insert and its trigger: 1.2 and 0.8 µs per
 * event against 2.1 and 1.7 (bench/RESULTS.md, pgingest4).
 */
import type { Migration } from '../types.js';
import { tallyFunctions } from './006-search-order.js';

const PROBED = (delta: string) => `(${delta}) d CROSS JOIN LATERAL (
    SELECT sensor_id, group_id, process_name FROM processes WHERE sensor_id = d.sensor_id AND id = d.process_row LIMIT 1
  ) p`;

export const TALLY_PROBES_MIGRATION: Migration = {
  version: 11,
  name: 'process name tally: one process probe per counted row',
  sql: tallyFunctions('CREATE OR REPLACE FUNCTION', PROBED),
};
