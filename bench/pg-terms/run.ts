/**
 * bench/pg-terms: the PostgreSQL event store's index choices measured on one synthetic set
 * (docs/adr/0019-postgres-event-store.md), in about a minute:
 *
 * - the term index: a postings table (term id, sensor, segment row) with a B-tree, against a
 *   GIN index over the term arrays of the chunk rows; each loaded in the same commits, then the
 *   same lookups (a rare term, a common one, a prefix through the dictionary);
 * - wildcards on the dictionary: pg_trgm against a text_pattern_ops B-tree (and a scan);
 * - time ranges on segments: BRIN against a B-tree on last_update_ms;
 * - chunk compression: deflate in Node against PostgreSQL's own (pglz, through TOAST).
 *
 *   node --import tsx bench/pg-terms/run.ts [--url postgres://…] [--segments 40000]
 *
 * Without --url it starts an embedded server (test/support/postgres-server.ts).
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { deflateRawSync } from 'node:zlib';
import pg from 'pg';
import { startTestPostgres } from '../../test/support/postgres-server.js';
import { calibrationLine } from '../support/calibration.js';

const { values } = parseArgs({ options: { url: { type: 'string' }, segments: { type: 'string', default: '40000' } } });
// The machine's calibration, to read the figures below on another machine (bench/support/calibration.ts).
console.log(await calibrationLine());
const SEGMENTS = Number(values.segments);
const PER_COMMIT = 500;
const own = values.url ? undefined : await startTestPostgres();
const client = new pg.Client({ connectionString: values.url ?? own!.url });
await client.connect();

/** A deterministic generator, so runs compare. */
let seed = 42;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
/** Skewed choice among n: a few values are very common, most are rare, as with module and domain names. */
const skewed = (n: number) => Math.floor(n * random() ** 3);

const FIELDS: [field: string, vocabulary: number, perChunk: number, make: (i: number) => string][] = [
  ['modload', 5_000, 12, (i) => `c:\\windows\\system32\\mod${i}.dll`],
  ['domain', 20_000, 4, (i) => `host${i}.example${i % 97}.com`],
  ['ipaddr', 50_000, 4, (i) => (0x0a000000 + i).toString(16).padStart(8, '0')],
  ['filemod', 400_000, 8, (i) => `c:\\users\\u${i % 300}\\appdata\\f${i}.tmp`],
];

interface Chunk { sensor: number; row: number; segmentId: number; terms: [string, string][]; data: string }
function chunkOf(row: number): Chunk {
  const terms: [string, string][] = [];
  for (const [field, vocabulary, perChunk, make] of FIELDS) {
    for (let k = 0; k < perChunk; k++) terms.push([field, make(skewed(vocabulary))]);
  }
  const unique = [...new Map(terms.map((t) => [t.join(':'), t])).values()];
  const data = JSON.stringify(unique.map(([field, value], k) => [k, 1_700_000_000_000 + row * 10 + k, field, value, 'ok']));
  return { sensor: 1 + (row % 200), row, segmentId: 1_700_000_000_000 + row * 20, terms: unique, data };
}

const median = async (sql: string, params: unknown[] = [], runs = 7): Promise<number> => {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await client.query(sql, params);
    times.push(performance.now() - start);
  }
  return Math.round(times.sort((a, b) => a - b)[runs >> 1]! * 100) / 100;
};
const size = async (relation: string) =>
  Number((await client.query('SELECT pg_total_relation_size($1::regclass) AS n', [relation])).rows[0].n);

await client.query(`DROP SCHEMA IF EXISTS bench_terms CASCADE; CREATE SCHEMA bench_terms; SET search_path = bench_terms;
  CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
  CREATE TABLE terms (id BIGSERIAL PRIMARY KEY, field TEXT NOT NULL, value TEXT NOT NULL, UNIQUE (field, value));
  CREATE TABLE postings (term_id BIGINT NOT NULL, sensor_id INT NOT NULL, segment_row BIGINT NOT NULL, PRIMARY KEY (term_id, sensor_id, segment_row));
  CREATE TABLE term_sets (sensor_id INT NOT NULL, segment_row BIGINT NOT NULL, terms TEXT[] NOT NULL, PRIMARY KEY (sensor_id, segment_row));
  CREATE INDEX term_sets_gin ON term_sets USING gin (terms);
  CREATE TABLE chunks_plain (sensor_id INT, segment_row BIGINT, data BYTEA);
  CREATE TABLE chunks_deflated (sensor_id INT, segment_row BIGINT, data BYTEA);
  ALTER TABLE chunks_deflated ALTER COLUMN data SET STORAGE EXTERNAL;`);

const load: Record<string, number> = { ginPendingListFlush: 0, postings: 0, gin: 0, dictionary: 0, deflate: 0, chunksPlain: 0, chunksDeflated: 0 };
const termIds = new Map<string, number>();
let rawBytes = 0;
let deflatedBytes = 0;
for (let first = 0; first < SEGMENTS; first += PER_COMMIT) {
  const chunks = Array.from({ length: Math.min(PER_COMMIT, SEGMENTS - first) }, (_, i) => chunkOf(first + i));
  // The dictionary, shared by both designs (wildcards need the distinct values either way).
  let start = performance.now();
  const fresh = [...new Map(chunks.flatMap((c) => c.terms).filter(([f, v]) => !termIds.has(`${f}:${v}`)).map((t) => [t.join(':'), t])).values()];
  if (fresh.length > 0) {
    const rows = await client.query(
      `INSERT INTO terms (field, value) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING RETURNING id, field, value`,
      [fresh.map((t) => t[0]), fresh.map((t) => t[1])],
    );
    for (const r of rows.rows) termIds.set(`${r.field}:${r.value}`, Number(r.id));
  }
  load.dictionary! += performance.now() - start;

  start = performance.now();
  const ids: number[] = []; const sensors: number[] = []; const segmentRows: number[] = [];
  for (const c of chunks) for (const [f, v] of c.terms) { ids.push(termIds.get(`${f}:${v}`)!); sensors.push(c.sensor); segmentRows.push(c.row); }
  await client.query('INSERT INTO postings SELECT * FROM unnest($1::bigint[], $2::int[], $3::bigint[]) ON CONFLICT DO NOTHING', [ids, sensors, segmentRows]);
  load.postings! += performance.now() - start;

  start = performance.now();
  await client.query('INSERT INTO term_sets SELECT s, r, string_to_array(t, chr(1)) FROM unnest($1::int[], $2::bigint[], $3::text[]) AS u(s, r, t)', [
    chunks.map((c) => c.sensor), chunks.map((c) => c.row), chunks.map((c) => c.terms.map((t) => t.join(':')).join('\u0001')),
  ]);
  load.gin! += performance.now() - start;

  start = performance.now();
  const deflated = chunks.map((c) => deflateRawSync(c.data, { level: 1 }));
  load.deflate! += performance.now() - start;
  for (const c of chunks) rawBytes += Buffer.byteLength(c.data);
  for (const d of deflated) deflatedBytes += d.length;
  start = performance.now();
  await client.query('INSERT INTO chunks_plain SELECT * FROM unnest($1::int[], $2::bigint[], $3::bytea[])', [
    chunks.map((c) => c.sensor), chunks.map((c) => c.row), chunks.map((c) => Buffer.from(c.data)),
  ]);
  load.chunksPlain! += performance.now() - start;
  start = performance.now();
  await client.query('INSERT INTO chunks_deflated SELECT * FROM unnest($1::int[], $2::bigint[], $3::bytea[])', [
    chunks.map((c) => c.sensor), chunks.map((c) => c.row), deflated,
  ]);
  load.chunksDeflated! += performance.now() - start;
}
// The GIN index's pending list (fastupdate) is merged here: its cost belongs to the GIN load.
const flush = performance.now();
await client.query('VACUUM term_sets');
load.ginPendingListFlush = performance.now() - flush;
await client.query('VACUUM ANALYZE');
for (const key of Object.keys(load)) load[key] = Math.round(load[key]!);

const common = await client.query(`SELECT value FROM terms WHERE field = 'modload' ORDER BY id LIMIT 1`);
const rare = await client.query(`SELECT value FROM terms WHERE field = 'filemod' ORDER BY id DESC LIMIT 1`);
const lookups: Record<string, unknown> = {};
for (const [name, field, value] of [['common', 'modload', common.rows[0].value], ['rare', 'filemod', rare.rows[0].value]] as const) {
  lookups[`${name} term, postings`] = await median(
    'SELECT count(*) FROM postings WHERE term_id IN (SELECT id FROM terms WHERE field = $1 AND value = $2)', [field, value]);
  lookups[`${name} term, gin`] = await median('SELECT count(*) FROM term_sets WHERE terms @> ARRAY[$1]', [`${field}:${value}`]);
}
const prefix = 'c:\\users\\u7\\appdata\\f1';
lookups['prefix, postings'] = await median(
  `SELECT count(DISTINCT segment_row) FROM postings WHERE term_id IN (SELECT id FROM terms WHERE field = 'filemod' AND value LIKE $1)`, [`${prefix.replace(/\\/g, '\\\\')}%`]);
lookups['prefix, gin'] = await median(
  `SELECT count(*) FROM term_sets WHERE terms && ARRAY(SELECT field || ':' || value FROM terms WHERE field = 'filemod' AND value LIKE $1)`, [`${prefix.replace(/\\/g, '\\\\')}%`]);

const infix = '%appdata\\\\f12%';
const wildcard: Record<string, number> = {};
wildcard['infix, scan'] = await median(`SELECT count(*) FROM terms WHERE field = 'filemod' AND value LIKE $1`, [infix], 3);
wildcard['prefix, scan'] = await median(`SELECT count(*) FROM terms WHERE field = 'filemod' AND value LIKE $1`, [`${prefix.replace(/\\/g, '\\\\')}%`], 3);
await client.query('CREATE INDEX terms_pattern ON terms (field, value text_pattern_ops)');
await client.query('ANALYZE terms');
wildcard['prefix, text_pattern_ops'] = await median(`SELECT count(*) FROM terms WHERE field = 'filemod' AND value LIKE $1`, [`${prefix.replace(/\\/g, '\\\\')}%`]);
const trgmStart = performance.now();
await client.query('CREATE INDEX terms_trgm ON terms USING gin (value public.gin_trgm_ops)');
wildcard['trgm build ms'] = Math.round(performance.now() - trgmStart);
await client.query('ANALYZE terms');
wildcard['infix, trgm'] = await median(`SELECT count(*) FROM terms WHERE field = 'filemod' AND value LIKE $1`, [infix]);

await client.query(`CREATE TABLE segments AS SELECT g AS id, 1700000000000 + g * 1000 + (g % 7) * 50000 AS last_update_ms, repeat('x', 40) AS pad FROM generate_series(1, 1000000) g`);
const range = [1_700_000_000_000 + 400_000_000, 1_700_000_000_000 + 410_000_000];
const times: Record<string, number> = {};
times['1% range, scan'] = await median('SELECT count(*) FROM segments WHERE last_update_ms BETWEEN $1 AND $2', range, 3);
await client.query('CREATE INDEX segments_brin ON segments USING brin (last_update_ms)');
await client.query('ANALYZE segments');
await client.query('SET enable_seqscan = off');
times['1% range, brin'] = await median('SELECT count(*) FROM segments WHERE last_update_ms BETWEEN $1 AND $2', range);
times['brin bytes'] = await size('segments_brin');
await client.query('DROP INDEX segments_brin; CREATE INDEX segments_btree ON segments (last_update_ms)');
times['1% range, btree'] = await median('SELECT count(*) FROM segments WHERE last_update_ms BETWEEN $1 AND $2', range);
times['btree bytes'] = await size('segments_btree');
await client.query('RESET enable_seqscan');

const sizes = {
  postings: await size('postings'), termSets: await size('term_sets'), terms: await size('terms'),
  chunksPlain: await size('chunks_plain'), chunksDeflated: await size('chunks_deflated'), chunkTextBytes: rawBytes, deflatedBytes,
};
const counts = (await client.query('SELECT (SELECT count(*) FROM postings) AS postings, (SELECT count(*) FROM terms) AS terms')).rows[0];
console.log(JSON.stringify({ segments: SEGMENTS, perCommit: PER_COMMIT, counts, loadMs: load, sizes, lookupMs: lookups, wildcardMs: wildcard, timeRangeMs: times }, null, 1));
await client.query('DROP SCHEMA bench_terms CASCADE');
await client.end();
await own?.stop();
