/**
 * Which searches a live run can narrow to candidates, and on what: the anchors derived from the
 * analyzed query (whether they select the right segments is matcher.anchors.test.ts's part).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeWatchlistQuery } from '../modules/watchlists/watchlist-query.js';
import { benchWatchlists } from '../../bench/detect/content.js';
import { searchAnchors } from './anchors.sqlite.js';

const anchorsOf = (q: string) => searchAnchors(analyzeWatchlistQuery(`q=${encodeURIComponent(q)}`, 'events', Date.now()).predicate);
const kinds = (q: string) => anchorsOf(q)?.map((a) => (a.kind === 'column' ? `${a.column}:${a.match.kind}:${a.match.value}` : `${a.fields.join('+')}${a.processWide ? ' (process)' : ''}`));

describe('search anchors', () => {
  it('anchors a term on its field: process columns by value, event fields and command-line words by dictionary terms', () => {
    assert.deepEqual(kinds('process_name:cmd.exe'), ['process_name:exact:cmd.exe']);
    assert.deepEqual(kinds('path:c:\\windows\\system32\\dns.exe'), ['process_name:exact:dns.exe']);
    assert.deepEqual(kinds('domain:example.com'), ['domain']);
    assert.deepEqual(kinds('cmdline:*payload*'), ['cmdline (process)']);
    assert.deepEqual(kinds('md5:ad7b9c14083b52bc532fba5948342b98'), [
      'md5:exact:ad7b9c14083b52bc532fba5948342b98', 'parent_md5:exact:ad7b9c14083b52bc532fba5948342b98', 'childproc_md5+filewrite_md5+modload_md5',
    ]);
  });

  it('takes the cheapest anchored child of an AND and the union of an OR', () => {
    assert.deepEqual(kinds('cmdline:*enc* process_name:powershell.exe'), ['process_name:exact:powershell.exe']);
    assert.deepEqual(kinds('-process_name:cmd.exe domain:example.com'), ['domain']);
    assert.deepEqual(kinds('process_name:notepad.exe OR domain:example.com'), ['process_name:exact:notepad.exe', 'domain']);
  });

  it('leaves negations, wildcard-only terms, host names and ORs with an unanchored side to be evaluated on every new segment', () => {
    for (const q of ['-process_name:cmd.exe', 'process_name:*', 'hostname:web1', 'process_name:cmd.exe OR -domain:example.com', 'netconn_count:[1 TO *]']) {
      assert.equal(anchorsOf(q), null, q);
    }
  });

  it('anchors every watchlist of bench/detect', () => {
    const unanchored = benchWatchlists(500).filter((w) => searchAnchors(analyzeWatchlistQuery(w.search_query, 'events', Date.now()).predicate) === null);
    assert.deepEqual(unanchored, []);
  });
});
