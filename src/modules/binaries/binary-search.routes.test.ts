/** GET/POST /api/v1/binary over HTTP (reference core §5.2): binaries uploaded through the sensor protocol, found by their metadata. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';
import { cbfeed, writeFeedFile } from '../../../test/support/feeds.js';
import { BINARIES, buildFleet, md5Of, queryString, type Fleet, type Params } from '../../../test/support/search.js';
import { binaryMetadata, uploadBinary } from '../../../test/support/sensors.js';
import { tempDir } from '../../../test/support/temp.js';

const NGINX = Buffer.from('\u007fELF nginx test content');

describe('binary search API', () => {
  let test: TestApp;
  let fleet: Fleet;
  const feedDir = tempDir('vigil-binary-feeds-');
  before(async () => {
    test = await startTestApp();
    fleet = await buildFleet(test);
    const uploaded = await uploadBinary(test, fleet.linux, binaryMetadata(NGINX, { observed_filename: '/usr/sbin/nginx', is_executable_image: true }));
    assert.equal(uploaded.statusCode, 200, uploaded.body);
  });
  after(async () => {
    await test.close();
    rmSync(feedDir, { recursive: true, force: true });
  });

  async function search(params: Params, token = test.adminToken) {
    const response = await test.app.inject({ url: `/api/v1/binary?${queryString(params)}`, headers: as(token) });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { total_results: number; results: Record<string, unknown>[]; facets: Record<string, { name: string; value: number }[]>; terms: string[] };
  }
  const md5s = (reply: { results: Record<string, unknown>[] }) => reply.results.map((r) => r.md5 as string).sort();
  const upper = (content: Buffer) => md5Of(content).toUpperCase();

  it('answers in the real server\'s envelope with summary documents, icons left out', async () => {
    const reply = await search({ q: `md5:${md5Of(BINARIES.cmd)}` });
    assert.deepEqual(Object.keys(reply).sort(), ['elapsed', 'facets', 'highlights', 'results', 'start', 'terms', 'total_results']);
    assert.equal(reply.total_results, 1);
    const doc = reply.results[0]!;
    assert.equal(doc.md5, upper(BINARIES.cmd));
    assert.equal(doc.digsig_result, 'Signed');
    assert.equal(doc.company_name, 'Microsoft Corporation');
    assert.deepEqual(doc.observed_filename, ['c:\\windows\\system32\\cmd.exe']);
    assert.deepEqual(doc.endpoint, [`WIN-ACCT-01|${fleet.windows.id}`]);
    assert.equal(doc.host_count, 1);
    assert.equal('icon' in doc, false);
  });

  it('matches binary fields by their types', async () => {
    const cases: [string, Buffer[]][] = [
      ['company_name:microsoft', [BINARIES.cmd, BINARIES.explorer]],
      ['company_name:"microsoft corporation"', [BINARIES.cmd, BINARIES.explorer]],
      ['company_name:contoso*', [BINARIES.powershell]],
      ['digsig_result:unsigned', [BINARIES.powershell]],
      ['-digsig_result:Signed', [BINARIES.powershell, NGINX]],
      ['digsig_publisher:microsoft', [BINARIES.cmd, BINARIES.explorer]],
      ['digsig_sign_time:[2024-01-01 TO 2024-12-31]', [BINARIES.cmd, BINARIES.explorer]],
      ['is_64bit:true', [BINARIES.cmd]],
      ['is_executable_image:true', [NGINX]],
      ['observed_filename:system32\\cmd.exe', [BINARIES.cmd]],
      ['observed_filename:sbin/nginx', [NGINX]],
      ['hostname:WIN-ACCT-01', [BINARIES.cmd, BINARIES.explorer, BINARIES.powershell]],
      ['group:servers', [NGINX]],
      ['os_type:linux', [NGINX]],
      ['host_count:1', [BINARIES.cmd, BINARIES.explorer, BINARIES.powershell, NGINX]],
      ['server_added_timestamp:-1h', [BINARIES.cmd, BINARIES.explorer, BINARIES.powershell, NGINX]],
      [`sha256:${binaryMetadata(NGINX, { observed_filename: 'x' }).sha256}`, [NGINX]],
      ['microsoft', [BINARIES.cmd, BINARIES.explorer]],
      ['', [BINARIES.cmd, BINARIES.explorer, BINARIES.powershell, NGINX]],
    ];
    for (const [q, expected] of cases) {
      const reply = await search({ q, rows: 100 });
      assert.deepEqual(md5s(reply), expected.map(upper).sort(), q);
      assert.equal(reply.total_results, expected.length, q);
    }
  });

  it('refuses process-only fields and bad queries as query syntax errors', async () => {
    for (const q of ['cmdline:whoami', 'company_name:(x']) {
      const response = await test.app.inject({ url: `/api/v1/binary?${queryString({ q })}`, headers: as(test.adminToken) });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().reason, 'query_malformed_syntax');
    }
  });

  it('sorts, newest first by default, and pages through every match once', async () => {
    const all = await search({ rows: 100, sort: 'md5 asc' });
    assert.deepEqual(all.results.map((r) => r.md5), md5s(all));
    const paged: unknown[] = [];
    for (let start = 0; start < all.total_results; start += 1) paged.push(...(await search({ rows: 1, start, sort: 'md5 asc' })).results.map((r) => r.md5));
    assert.deepEqual(paged, all.results.map((r) => r.md5));
    const newest = await search({ rows: 1 });
    assert.equal(newest.results[0]!.md5, upper(NGINX), 'uploaded last');
    const post = await test.app.inject({ method: 'POST', url: '/api/v1/binary', headers: as(test.adminToken), payload: { q: ['digsig_result:signed'], rows: [10] } });
    assert.equal(post.statusCode, 200, post.body);
    assert.equal(post.json().total_results, 2);
  });

  it('facets by the binary facets of the reference', async () => {
    const reply = await search({ rows: 0, facet: 'true', 'facet.field': ['company_name_facet', 'digsig_result', 'observed_filename_facet', 'server_added_timestamp'] });
    assert.deepEqual(reply.facets.company_name_facet!.map((e) => [e.name, e.value]), [['Microsoft Corporation', 2], ['Contoso Ltd', 1]]);
    assert.deepEqual(reply.facets.digsig_result!.map((e) => [e.name, e.value]), [['Signed', 2], ['(Unknown)', 1], ['Unsigned', 1]]);
    assert.equal(reply.facets.observed_filename_facet!.length, 4);
    const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString().replace('.000Z', 'Z');
    assert.deepEqual(reply.facets.server_added_timestamp!.map((e) => [e.name, e.value]), [[today, 4]]);
  });

  it('facets alliance_score_virustotal by each binary\'s highest VirusTotal score, other feeds left out', async () => {
    const { cmd, explorer, powershell, nginx } = { ...BINARIES, nginx: NGINX };
    const feeds = [
      cbfeed('virustotal', [
        { id: 'vt-detected', title: 'Detected by 40 engines', score: 80, iocs: { md5: [md5Of(cmd), md5Of(explorer)] } },
        { id: 'vt-suspicious', title: 'Detected by 3 engines', score: 40, iocs: { md5: [md5Of(cmd), md5Of(powershell)] } },
      ]),
      cbfeed('tor', [{ id: 'tor-relay', title: 'Tor relay', score: 100, iocs: { md5: [md5Of(nginx)] } }]),
    ];
    for (const feed of feeds) {
      const added = await test.app.inject({
        method: 'POST', url: '/api/v1/feed', headers: as(test.adminToken), payload: { feed_url: writeFeedFile(feedDir, `${feed.feedinfo.name}.json`, feed) },
      });
      assert.equal(added.statusCode, 200, added.body);
    }
    // The hits the matcher would record for these IOCs, recorded by hand so the test need not wait for it.
    const reports = await test.container.services.detection.iocReports('md5', [cmd, explorer, powershell, nginx].map(md5Of));
    assert.equal(reports.length, 5);
    await test.container.services.detection.feedHits(reports.map((r) => ({ reportRow: r.reportRow, iocType: 'md5', iocValue: r.value, md5: r.value, atMs: Date.now() })));

    const facet = async (q: string) => (await search({ q, rows: 0, facet: 'true', 'facet.field': 'alliance_score_virustotal' })).facets.alliance_score_virustotal;
    assert.deepEqual(await facet(''), [{ name: '80', value: 2, percent: 50, ratio: 50 }, { name: '40', value: 1, percent: 25, ratio: 25 }]);
    assert.deepEqual((await facet('digsig_result:signed'))!.map((e) => [e.name, e.value]), [['80', 2]]);
    assert.deepEqual((await facet('company_name:contoso'))!.map((e) => [e.name, e.value]), [['40', 1]]);
    assert.deepEqual(await facet('os_type:linux'), [], 'a score of another feed is not a VirusTotal score');
  });

  it('shows a user only binaries seen in groups they may view, with only those sightings', async () => {
    const team = await test.app.inject({
      method: 'POST', url: '/api/team', headers: as(test.adminToken),
      payload: { name: 'binary-server-watchers', group_access: [{ group_id: fleet.serversGroup, access_category: 'Viewer' }] },
    });
    assert.equal(team.statusCode, 200, team.body);
    const viewer = await createUser(test, { username: 'binary-viewer', teams: [team.json().id] });
    assert.deepEqual(md5s(await search({ rows: 100 }, viewer)), [upper(NGINX)]);
    assert.equal((await search({ q: 'hostname:win-acct-01', rows: 100 }, viewer)).total_results, 0);
  });
  it('facets on the catalogue fields too: where each binary was seen (hostname, group, host_count), counted per binary', async () => {
    // cmd.exe's binary seen on the Linux server as well (last test: the sightings above stay as they were).
    const again = await uploadBinary(test, fleet.linux, binaryMetadata(BINARIES.cmd, { observed_filename: '/mnt/c/windows/system32/cmd.exe' }));
    assert.equal(again.statusCode, 200, again.body);
    const fields = ['hostname', 'group', 'host_count', 'os_type', 'is_64bit'];
    const reply = await search({ rows: 0, facet: 'true', 'facet.field': fields });
    const counts = (field: string) => reply.facets[field]!.map((e) => [e.name, e.value]);
    assert.equal(reply.total_results, 4);
    assert.deepEqual(counts('hostname'), [['win-acct-01', 3], ['web-01', 2]]);
    assert.deepEqual(counts('group'), [['default group', 3], ['servers', 2]]);
    assert.deepEqual(counts('host_count'), [['1', 3], ['2', 1]]);
    assert.deepEqual(counts('os_type'), [['windows', 3], ['linux', 2]]);
    assert.deepEqual(counts('is_64bit'), [['true', 1]]);
    assert.deepEqual(reply.facets.hostname![0], { name: 'win-acct-01', value: 3, percent: 75, ratio: 75 });

    const team = await test.app.inject({
      method: 'POST', url: '/api/team', headers: as(test.adminToken),
      payload: { name: 'binary-facet-watchers', group_access: [{ group_id: fleet.serversGroup, access_category: 'Viewer' }] },
    });
    const viewer = await createUser(test, { username: 'binary-facet-viewer', teams: [team.json().id] });
    const seen = await search({ rows: 0, facet: 'true', 'facet.field': ['hostname', 'host_count'] }, viewer);
    assert.deepEqual(seen.facets.hostname!.map((e) => [e.name, e.value]), [['web-01', 2]], 'only sightings the viewer may see');
    assert.deepEqual(seen.facets.host_count!.map((e) => [e.name, e.value]), [['1', 2]], 'hosts counted among those the viewer may see');
  });
});
