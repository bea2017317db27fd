/**
 * The event side of `vigil migrate-store`: storage partitions become PostgreSQL partitions, and
 * every stored chunk is moved the way the PostgreSQL event store writes one
 * (event-store.postgres.ts): deflated, with the search terms it brought to its segment as a term
 * array, its command-line words on the process, and its (field, value) pairs in the dictionary.
 * Terms are computed from the events themselves (`summarize`, as ingest does), not translated
 * from SQLite's postings, so a moved segment is found by exactly the searches a new one would be.
 */
import { deflateRawSync } from 'node:zlib';
import type pg from 'pg';
import { ConfigError } from '../config/load.js';
import { BinaryCopyRows } from '../db/dialects/postgres-copy.js';
import { decodeChunk } from '../ingest/event-codec.js';
import { summarize } from '../ingest/prepare.js';
import { DEFLATE } from '../modules/processes/event-store.postgres.js';
import type { SqliteSource } from './sqlite-source.js';

const PARTITIONED = ['segments', 'event_chunks', 'segment_terms'] as const;
/** The tables of storage partitions (`segments_p3`, …), attached or detached. */
export const PARTITION_TABLE_PATTERN = `^(${PARTITIONED.join('|')})_p[0-9]+$`;
const SEGMENTS_PER_READ = 500;
const PROGRESS_EVERY = 50_000;

interface SourcePartition {
  id: number; name: string; first_row: number; start_ms: number; end_ms: number | null; state: string; user_mounted: number;
}

export interface MovedEvents {
  partitions: number;
  chunks: number;
  events: number;
  termSets: number;
  dictionaryTerms: number;
}

/**
 * Replaces the target's partitions by the source's: an embedded partition is a range of segment
 * rows, a PostgreSQL one a range of segment ids, so each boundary becomes the lowest segment id
 * at or after it. Segment ids grow with rows (both follow the server clock); a store where they
 * do not cannot be split the same way and is refused.
 */
export async function createPartitions(client: pg.PoolClient, source: SqliteSource): Promise<SourcePartition[]> {
  const all = source.all<SourcePartition>('SELECT id, name, first_row, start_ms, end_ms, state, user_mounted FROM event_partitions ORDER BY first_row, id');
  if (all.some((p) => p.state === 'deleting')) {
    throw new ConfigError('A storage partition of the embedded store is being deleted: start vigil serve on it until the deletion is done, then move it.');
  }
  const live = all.filter((p) => p.state !== 'deleted');
  // Attached or not: an unmounted partition's tables are detached but still there.
  const { rows: existing } = await client.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p') AND relname ~ $1`,
    [PARTITION_TABLE_PATTERN],
  );
  for (const table of existing) await client.query(`DROP TABLE ${table.name}`);
  const lowers: number[] = [];
  let highestBefore = -Infinity;
  for (const [i, partition] of live.entries()) {
    const next = live[i + 1]?.first_row ?? Number.MAX_SAFE_INTEGER;
    const [range] = source.all<{ low: number | null; high: number | null }>(
      'SELECT min(segment_id) AS low, max(segment_id) AS high FROM segments WHERE id >= ? AND id < ?', [partition.first_row, next],
    );
    // Above every earlier segment and bound: ranges must not overlap, even around an empty partition.
    const lower = i === 0 ? 0 : Math.max(range!.low ?? partition.start_ms, highestBefore + 1, lowers[i - 1]! + 1);
    if (range!.low !== null && range!.low < lower) {
      throw new ConfigError(`Storage partition ${partition.name} holds segments older than the partition before it: this store cannot be split into PostgreSQL's time ranges.`);
    }
    lowers.push(lower);
    if (range!.high !== null) highestBefore = Math.max(highestBefore, range!.high);
  }
  for (const [i, partition] of live.entries()) {
    const from = i === 0 ? 'MINVALUE' : String(lowers[i]);
    const to = i + 1 < live.length ? String(lowers[i + 1]) : 'MAXVALUE';
    for (const table of PARTITIONED) {
      await client.query(`CREATE TABLE ${table}_p${partition.id} PARTITION OF ${table} FOR VALUES FROM (${from}) TO (${to})`);
    }
  }
  await client.query('DELETE FROM event_partitions');
  for (const partition of all) {
    const index = live.indexOf(partition);
    await client.query(
      'INSERT INTO event_partitions (id, name, first_segment_id, start_ms, end_ms, state, user_mounted) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [partition.id, partition.name, index < 0 ? 0 : lowers[index], partition.start_ms, partition.end_ms, partition.state, partition.user_mounted],
    );
  }
  return live;
}

/** Unmounted partitions are detached, as an unmount on PostgreSQL leaves them (searches no longer see them). */
export async function detachCold(client: pg.PoolClient, partitions: readonly SourcePartition[]): Promise<void> {
  for (const partition of partitions.filter((p) => p.state === 'cold')) {
    for (const table of PARTITIONED) await client.query(`ALTER TABLE ${table} DETACH PARTITION ${table}_p${partition.id}`);
  }
}

/** Moves every segment's chunks and terms; segments and processes were copied before. */
export async function moveChunks(client: pg.PoolClient, source: SqliteSource, progress: (line: string) => void): Promise<Omit<MovedEvents, 'partitions'>> {
  await client.query('CREATE TEMPORARY TABLE moved_words (sensor_id BIGINT, process_row BIGINT, word TEXT) ON COMMIT DROP');
  const moved = { chunks: 0, events: 0, termSets: 0, dictionaryTerms: 0 };
  const [{ total }] = source.all<{ total: number }>('SELECT count(*) AS total FROM segments') as [{ total: number }];
  let done = 0;
  for (let after = -1; ;) {
    const page = source.all<{ id: number; segment_id: number; process_id: number; sensor_id: number; pid: number; start_ms: number }>(
      `SELECT s.id, s.segment_id, s.process_id, p.sensor_id, p.pid, p.start_ms FROM segments s JOIN processes p ON p.id = s.process_id
       WHERE s.id > ? ORDER BY s.id LIMIT ${SEGMENTS_PER_READ}`, [after],
    );
    if (page.length === 0) break;
    after = page.at(-1)!.id;
    const chunks = new BinaryCopyRows('event_chunks', [
      ['sensor_id', 'int8'], ['segment_id', 'int8'], ['segment_row', 'int8'], ['chunk', 'int4'], ['event_count', 'int4'], ['data', 'bytea'],
    ]);
    const termSets = new BinaryCopyRows('segment_terms', [
      ['sensor_id', 'int8'], ['segment_id', 'int8'], ['segment_row', 'int8'], ['chunk', 'int4'], ['terms', 'text[]'],
    ]);
    const words = new BinaryCopyRows('moved_words', [['sensor_id', 'int8'], ['process_row', 'int8'], ['word', 'text']]);
    const dictionary = new Map<string, [string, string]>();
    const stored = source.chunks(page.map((s) => s.id));
    for (const [i, segment] of page.entries()) {
      const posted = new Set<string>();
      for (const [chunk, data] of stored[i]!.entries()) {
        const events = decodeChunk(data, segment.pid, segment.start_ms);
        chunks.add([segment.sensor_id, segment.segment_id, segment.id, chunk, events.length, deflateRawSync(data, DEFLATE)]);
        moved.events += events.length;
        const { terms } = summarize(events);
        const added: string[] = [];
        for (let t = 0; t < terms.length; t += 2) {
          const term = `${terms[t]}:${terms[t + 1]}`;
          dictionary.set(term, [terms[t]!, terms[t + 1]!]);
          if (terms[t] === 'cmdline') words.add([segment.sensor_id, segment.process_id, terms[t + 1]!]);
          else if (!posted.has(term)) {
            posted.add(term);
            added.push(term);
          }
        }
        if (added.length > 0) termSets.add([segment.sensor_id, segment.segment_id, segment.id, chunk, added]);
      }
    }
    moved.chunks += chunks.rows;
    moved.termSets += termSets.rows;
    await chunks.send(client);
    await termSets.send(client);
    await words.send(client);
    const pairs = [...dictionary.values()];
    const inserted = await client.query(
      'INSERT INTO event_terms (field, value) SELECT * FROM unnest($1::text[], $2::text[]) ORDER BY 1, 2 ON CONFLICT DO NOTHING',
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    moved.dictionaryTerms += inserted.rowCount ?? 0;
    done += page.length;
    if (done % PROGRESS_EVERY < SEGMENTS_PER_READ || done === total) {
      progress(`  ${done} of ${total} segments: ${moved.chunks} chunks, ${moved.events} events`);
    }
  }
  await client.query(
    `UPDATE processes p SET cmdline_words = w.words
     FROM (SELECT sensor_id, process_row, array_agg(DISTINCT word) AS words FROM moved_words GROUP BY 1, 2) w
     WHERE p.sensor_id = w.sensor_id AND p.id = w.process_row`,
  );
  return moved;
}
