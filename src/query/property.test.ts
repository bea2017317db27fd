/**
 * Property tests: whatever text arrives, the pipeline answers with a result or a typed
 * QueryError pointing inside the text (never a crash, never a 500), and every text it accepts
 * survives the serialize round trip.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { withoutSpans } from './ast.js';
import { analyze } from './analyze.js';
import { QueryError } from './errors.js';
import { parseQuery } from './parser.js';
import { serialize } from './serialize.js';

const PIECES = [
  'process_name:', 'cmdline:', 'md5:', 'sha256:', 'start:', 'ipaddr:', 'ipv6addr:', 'domain:', 'path:', 'regmod:',
  'digsig_result_parent:', 'watchlist_1:', 'alliance_score_tor:', 'netconn_count:', 'is_64bit:', 'crossproc_type:',
  'process_id:', 'company_name:', 'unknown_field:', ' ', '  ', ' AND ', ' and ', ' OR ', ' or ', 'NOT ', '-', '(', ')',
  '[', ']', ' TO ', '*', '?', '"', '\u201C', '\u201D', '\\', '\\ ', '\\"', ':', 'a', 'svchost.exe', 'c:\\windows\\',
  '10.0.0.1', '/16', '-1', '-24h', '2024-01-01', 'T10:00:00', 'fe80::1', 'true', '.com', '.', 'processopen', '0', '42',
  'd41d8cd98f00b204e9800998ecf8427e', 'Signed',
];

const queryLike = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 3 })), { maxLength: 24 }).map((parts) => parts.join(''));
const anyText = fc.string({ unit: 'grapheme', maxLength: 60 });
const now = Date.UTC(2024, 4, 1);

function runPipeline(text: string): void {
  try {
    const tree = parseQuery(text);
    for (const index of ['process', 'binary'] as const) {
      try {
        analyze(tree, { index, now });
      } catch (error) {
        assertTypedError(error, text);
      }
    }
  } catch (error) {
    assertTypedError(error, text);
  }
}

function assertTypedError(error: unknown, text: string): void {
  assert.ok(error instanceof QueryError, `not a QueryError for ${JSON.stringify(text)}: ${String(error)}`);
  assert.ok(error.position >= 0 && error.position <= text.length, `position ${error.position} outside ${JSON.stringify(text)}`);
  assert.match(error.message, /at position \d+/);
}

function roundTrips(text: string): void {
  let tree;
  try {
    tree = parseQuery(text);
  } catch (error) {
    assertTypedError(error, text);
    return;
  }
  const again = parseQuery(serialize(tree));
  assert.deepEqual(withoutSpans(again), withoutSpans(tree), `round trip of ${JSON.stringify(text)} via ${JSON.stringify(serialize(tree))}`);
}

describe('pipeline properties', () => {
  it('answers query-like text with a result or a typed error', () => {
    fc.assert(fc.property(queryLike, (text) => runPipeline(text)), { numRuns: 3000 });
  });

  it('answers arbitrary Unicode with a result or a typed error', () => {
    fc.assert(fc.property(anyText, (text) => runPipeline(text)), { numRuns: 1000 });
  });

  it('round-trips every accepted query through serialize', () => {
    fc.assert(fc.property(queryLike, (text) => roundTrips(text)), { numRuns: 3000 });
  });
});
