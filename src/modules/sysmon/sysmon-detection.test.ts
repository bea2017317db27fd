/**
 * Downstream of the edge, Sysmon events are events like any other: a watchlist written for the
 * attack and a threat feed with its hash match as the recording arrives, raise alerts, and the
 * process tree (parent, children) holds across hosts' GUIDs. Real data: the mshta recording.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { cbfeed, writeFeedFile } from '../../../test/support/feeds.js';
import { recordingPath } from '../../../test/support/sysmon-fixtures.js';
import { tempDir } from '../../../test/support/temp.js';

/** mshta.exe's MD5 in the recording. */
const MSHTA_MD5 = '7c5c45d9f45694521548e99ba5d4e535';

describe('watchlists, feeds and alerts on Sysmon data', () => {
  let test: TestApp;
  let dir: string;
  before(async () => {
    test = await startTestApp({ detectionCoalesceMs: 50 });
    dir = tempDir('vigil-sysmon-detect-');
  });
  after(async () => {
    await test.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) => {
    const response = await test.app.inject({ method, url, headers: as(test.adminToken), ...(payload ? { payload } : {}) });
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  const until = async (what: string, check: () => Promise<boolean>) => {
    for (const deadline = Date.now() + 10_000; !(await check());) {
      if (Date.now() > deadline) assert.fail(`${what} did not happen`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  it('tags and alerts on the attack as it arrives, by query and by feed hash', async () => {
    const { id: watchlistId } = await api('POST', '/api/v1/watchlist', {
      name: 'mshta running script', search_query: `cb.urlver=1&q=${encodeURIComponent('process_name:mshta.exe cmdline:vbscript')}`, index_type: 'events',
    });
    await api('PUT', `/api/v1/watchlist/${watchlistId}/action_type/3`, { enabled: true });
    const feed = await api('POST', '/api/v1/feed', {
      feed_url: writeFeedFile(dir, 'intel.json', cbfeed('intel', [{ id: 'mshta-md5', title: 'mshta', score: 60, iocs: { md5: [MSHTA_MD5] } }])),
    });
    await api('POST', `/api/v1/feed/${feed.id}/action`, { action_type: 3 });
    await test.container.detectionMatcher.idle();

    const { key } = await api('POST', '/api/v1/group/1/ingest_key', {});
    const sent = await test.app.inject({
      method: 'POST', url: '/ingest/v1/sysmon', payload: readFileSync(recordingPath('cmd_mshta_vbscript_execute_psh')),
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    });
    assert.equal(sent.statusCode, 200, sent.body);

    await until('the watchlist hit', async () => (await api('GET', `/api/v1/watchlist/${watchlistId}`)).total_hits === '1');
    const tagged = await api('GET', `/api/v1/process?q=${encodeURIComponent(`watchlist_${watchlistId}:*`)}`);
    assert.equal(tagged.results[0].process_name, 'mshta.exe');
    const alerts = (await api('GET', `/api/v2/alert?q=${encodeURIComponent(`watchlist_id:${watchlistId}`)}`)).results;
    assert.equal(alerts.length, 1);
    assert.equal(alerts[0].hostname, 'workstation5');

    let hits: { total_results: number; results: { process_name: string }[] } = { total_results: 0, results: [] };
    await until('the feed hit', async () => (hits = await api('GET', `/api/v1/process?q=${encodeURIComponent('alliance_score_intel:*')}`)).total_results > 0);
    // mshta itself, and its parent, whose childproc event carries mshta's md5.
    assert.ok(hits.results.some((r) => r.process_name === 'mshta.exe'));
    assert.equal(hits.total_results, 2);
    await test.container.detectionMatcher.idle();
    const feedAlerts = (await api('GET', `/api/v2/alert?q=${encodeURIComponent('feed_name:intel')}`)).results;
    assert.deepEqual(feedAlerts.map((a: { ioc_type: string }) => a.ioc_type), ['md5', 'md5'], 'one per process');
  });

  it('holds the process tree: mshta\'s parent and the PowerShell child it started', async () => {
    const [mshta] = (await api('GET', `/api/v1/process?q=${encodeURIComponent('process_name:mshta.exe')}`)).results;
    assert.equal(mshta.parent_name, 'cmd.exe');
    const tree = await api('GET', `/api/v2/process/${mshta.id}/0?children=10`);
    assert.equal(tree.parent.process_pid, mshta.parent_pid, 'the parent started before the recording: known by its pid and its acts');
    assert.ok(tree.children.some((c: { process_name: string; cmdline: string }) => c.process_name === 'powershell.exe' && /Get-Service sysmon/.test(c.cmdline)),
      JSON.stringify(tree.children));
  });
});
