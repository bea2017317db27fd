/**
 * Property tests: whatever text arrives, the pipeline answers with a result or a typed
 * QueryError pointing inside the text (never a crash, never a 500), and every text it accepts
 * survives the serialize round trip. src/modules/processes/process-search.property.test.ts takes
 * the same kind of text further, through compilation and the store, over HTTP.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { withoutSpans } from './ast.js';
import { analyze } from './analyze.js';
import { QueryError } from './errors.js';
import { parseQuery } from './parser.js';
import { QUERY_PIECES } from './property.cases.js';
import { serialize } from './serialize.js';

const queryLike = fc.array(fc.oneof(fc.constantFrom(...QUERY_PIECES), fc.string({ maxLength: 3 })), { maxLength: 24 }).map((parts) => parts.join(''));
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
