/**
 * Whatever query text a client sends, process and binary search answer 200 with their envelope or
 * 400 {"reason": "query_malformed_syntax", "message": "… at position N"}, never a 500: random text
 * goes the whole way (parse, analyze, compile to SQL, run in the read worker on a real SQLite
 * store with a small fleet), and so do queries at the size limits (thousands of terms, deep
 * nesting), which once compiled to SQL deeper than SQLite accepts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { buildFleet, queryString } from '../../../test/support/search.js';
import { MAX_CONDITIONS } from '../../query/budget.js';
import { QUERY_PIECES } from '../../query/property.cases.js';

const SEARCHES = ['/api/v1/process', '/api/v1/binary'] as const;
type Search = (typeof SEARCHES)[number];
/** A page (with its total) or a refusal (with its message). */
type Outcome = { total: number } | { refused: string };

/** Terms that find something in the fleet, so that random queries also reach rows and documents. */
const FLEET_TERMS = ['cmd.exe', 'hostname:win-acct-01', 'bash', 'evil.example.ru', 'username:alice', 'digsig_result:Signed', 'microsoft', '*'];
const queryLike = fc.array(fc.oneof(fc.constantFrom(...QUERY_PIECES, ...FLEET_TERMS), fc.string({ maxLength: 3 })), { maxLength: 24 })
  .map((parts) => parts.join(''));
const fleetQuery = fc.array(fc.tuple(fc.constantFrom(' ', ' OR ', ' AND -', ' (', ') '), fc.constantFrom(...FLEET_TERMS)), { minLength: 1, maxLength: 4 })
  .map((pairs) => pairs.flat().join('').slice(1));
const anyText = fc.string({ unit: 'grapheme', maxLength: 60 });
const request = fc.record({
  q: fc.oneof(queryLike, fleetQuery, anyText),
  /** A cb.q.<field> term beside q: parsed as a field group, sharing q's condition budget. */
  extra: fc.option(fc.tuple(fc.constantFrom('cb.q.process_name', 'cb.q.hostname', 'cb.q.md5', 'cb.q.company_name', 'cb.q.nosuch'), queryLike), { nil: undefined }),
  post: fc.boolean(),
});

const ROWS = 5;

const many = (count: number, term: (i: number) => string, separator: string) => Array.from({ length: count }, (_, i) => term(i)).join(separator);
const md5 = (i: number) => `md5:${i.toString(16).padStart(32, '0')}`;
/** `t0 AND (t1 OR (t2 AND (…)))`, `depth` parentheses deep. */
const alternating = (depth: number, i = 0): string => (i === depth ? `t${i}` : `t${i} ${i % 2 ? 'OR' : 'AND'} (${alternating(depth, i + 1)})`);
/** `t0 -(t1 -(t2 -(…)))`: each level is a negation and a group, two levels of nesting. */
const negations = (levels: number, i = 0): string => (i === levels ? 'cmd.exe' : `t${i} -(${negations(levels, i + 1)})`);
const TOO_MANY = new RegExp(`more than ${MAX_CONDITIONS} conditions`, 'u');

/** Queries at and past the limits, with what each search must say: answer, or refuse with this message. */
const AT_THE_LIMITS: readonly { name: string; q: string; process: 'answered' | RegExp; binary: 'answered' | RegExp }[] = [
  { name: '1,500 md5 terms ORed (an IOC list)', q: many(1_500, md5, ' OR '), process: 'answered', binary: 'answered' },
  { name: '1,500 negated md5 terms ANDed', q: many(1_500, (i) => `-${md5(i)}`, ' '), process: 'answered', binary: 'answered' },
  { name: `${MAX_CONDITIONS} named terms ORed`, q: many(MAX_CONDITIONS, (i) => `digsig_publisher:t${i}`, ' OR '), process: 'answered', binary: 'answered' },
  { name: `${MAX_CONDITIONS + 1} named terms ORed`, q: many(MAX_CONDITIONS + 1, (i) => `digsig_publisher:t${i}`, ' OR '), process: TOO_MANY, binary: TOO_MANY },
  { name: '1,000 bare terms ANDed', q: many(1_000, (i) => `t${i}`, ' AND '), process: TOO_MANY, binary: TOO_MANY },
  { name: '1,000 bare terms ORed', q: many(1_000, (i) => `t${i}`, ' OR '), process: TOO_MANY, binary: TOO_MANY },
  { name: '1,000 negated bare terms', q: many(1_000, (i) => `-t${i}`, ' '), process: TOO_MANY, binary: TOO_MANY },
  { name: 'a 1,000-word command-line phrase', q: `cmdline:"${many(1_000, (i) => `w${i}`, ' ')}"`, process: 'answered', binary: /not searchable in binary search/u },
  { name: '64 nested parentheses', q: `${'('.repeat(64)}cmd.exe${')'.repeat(64)}`, process: 'answered', binary: 'answered' },
  { name: '65 nested parentheses', q: `${'('.repeat(65)}cmd.exe${')'.repeat(65)}`, process: /nested deeper than 64/u, binary: /nested deeper than 64/u },
  { name: 'bare terms 64 groups deep, AND and OR alternating', q: alternating(64), process: 'answered', binary: 'answered' },
  { name: 'negated groups 32 deep', q: negations(32), process: 'answered', binary: 'answered' },
  { name: 'NOT 1,000 times', q: `${'NOT '.repeat(1_000)}cmd.exe`, process: /nested deeper than 64/u, binary: /nested deeper than 64/u },
  { name: '65,537 characters', q: `${'a '.repeat(32_768)}a`, process: /longer than 65536 characters/u, binary: /longer than 65536 characters/u },
];

describe('process and binary search over HTTP, whatever the query', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
    await buildFleet(test);
  });
  after(() => test.close());

  function send(path: Search, params: Record<string, string>, post: boolean): Promise<LightMyRequestResponse> {
    const all = { ...params, rows: String(ROWS) };
    return post
      ? test.app.inject({ method: 'POST', url: path, headers: as(test.adminToken), payload: all })
      : test.app.inject({ url: `${path}?${queryString(all)}`, headers: as(test.adminToken) });
  }

  /** Checks that the answer is a well-formed page or a typed refusal pointing into the text, and says which. */
  function judge(path: Search, params: Record<string, string>, response: LightMyRequestResponse): Outcome {
    const context = `${path} ${JSON.stringify(params).slice(0, 300)}: ${response.statusCode} ${response.body.slice(0, 300)}`;
    assert.match(String(response.headers['content-type']), /^application\/json/u, context);
    const body = response.json() as Record<string, unknown>;
    if (response.statusCode === 400) {
      assert.equal(body.reason, 'query_malformed_syntax', context);
      assert.match(String(body.message), /at position \d+/u, context);
      return { refused: String(body.message) };
    }
    assert.equal(response.statusCode, 200, context);
    const total = body.total_results as number;
    const results = body.results as Record<string, unknown>[];
    assert.ok(Number.isSafeInteger(total) && total >= 0, context);
    assert.ok(Array.isArray(results) && results.length === Math.min(ROWS, total), context);
    assert.ok(Array.isArray(body.terms) && typeof body.facets === 'object' && body.start === 0, context);
    for (const doc of results) {
      if (path === '/api/v1/process') assert.equal(typeof doc.unique_id, 'string', context);
      else assert.match(String(doc.md5), /^[0-9A-F]{32}$/u, context);
    }
    return { total };
  }

  it('answers random query text with a page or a typed 400 (GET and POST, with and without cb.q terms)', async () => {
    const seen = new Set<string>();
    await fc.assert(fc.asyncProperty(request, async ({ q, extra, post }) => {
      const params: Record<string, string> = extra ? { q, [extra[0]]: extra[1] } : { q };
      for (const path of SEARCHES) {
        const outcome = judge(path, params, await send(path, params, post));
        seen.add(`${path} ${'refused' in outcome ? 'refused' : outcome.total > 0 ? 'found' : 'found nothing'}`);
      }
    }), { numRuns: 300 });
    // Not vacuous: each search refused some text, and answered some with matches and some without.
    for (const path of SEARCHES) {
      for (const outcome of ['refused', 'found', 'found nothing']) assert.ok(seen.has(`${path} ${outcome}`), `${path} never ${outcome}`);
    }
  });

  for (const { name, q, ...expected } of AT_THE_LIMITS) {
    it(`${name}: ${expected.process === 'answered' ? 'answered' : 'refused'} / ${expected.binary === 'answered' ? 'answered' : 'refused'}`, async () => {
      for (const path of SEARCHES) {
        const expect = path === '/api/v1/process' ? expected.process : expected.binary;
        const outcome = judge(path, { q }, await send(path, { q }, true));
        if (expect === 'answered') assert.ok('total' in outcome, `${path}: ${JSON.stringify(outcome)}`);
        else assert.match('refused' in outcome ? outcome.refused : 'answered', expect, path);
      }
    });
  }
});
