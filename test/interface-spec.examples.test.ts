/**
 * Every explicit example of the interface specification (shared/reference/interface-spec.md) as a
 * test through the real HTTP app: a facet field, a parameter value, a status, a message or a
 * format. Each test names the specification's line ("L190") it checks. The specification writes
 * the parameter prefix as `svc.`; on the wire it is `cb.` (L116).
 *
 * Where the specification and a recorded real server disagree, the recorded server wins and the
 * test says so (a watchlist's id in a GET is a string).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from './support/app.js';
import { cbfeed, writeFeedFile } from './support/feeds.js';
import { storedSegments } from './support/processes.js';
import { buildFleet, names, processStart, queryString, type Fleet, type Params } from './support/search.js';
import { binaryMetadata, uploadBinary, uploadEvents } from './support/sensors.js';
import { tempDir } from './support/temp.js';

/** L122: `YYYY-MM-DD HH:MM:SS.ffffff` and a UTC offset `+hh:mm` or `-hh:mm`. */
const RECORD_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}[+-]\d{2}:\d{2}$/u;
/** L124: `YYYY-MM-DDTHH:MM:SS.ffffffZ`. */
const SEARCH_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/u;
/** L89: hexadecimal groups of length 8-4-4-4-12 separated by hyphens. */
const PROCESS_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u;
/** L59: four dotted numeric groups, three digits in the first three and five in the last. */
const BUILD_VERSION = /^\d{3}\.\d{3}\.\d{3}\.\d{5}$/u;
const MD5 = /^[0-9a-fA-F]{32}$/u;

describe('interface specification examples', () => {
  let test: TestApp;
  let fleet: Fleet;
  const feedDir = tempDir('vigil-spec-feeds-');
  const content = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(64, 0x90), Buffer.from('interface spec example')]);
  const contentMd5 = binaryMetadata(content, { observed_filename: 'x' }).md5;

  before(async () => {
    // Segments of at most five events, so that cmd.exe's eight events make two segments (L102).
    test = await startTestApp({ segmentMaxEvents: 5, detectionMatcherEnabled: false });
    fleet = await buildFleet(test);
    const start = Date.parse('2026-11-20T10:00:05Z');
    // A process whose user the sensor did not know (L92: the username may be empty).
    const nameless = await uploadEvents(test, fleet.linux, 2, [processStart(4000, start, { path: '/usr/sbin/cron', cmdline: 'cron', username: '' })]);
    assert.equal(nameless.statusCode, 200, nameless.body);
    const stored = await uploadBinary(test, fleet.windows, binaryMetadata(content, { observed_filename: 'c:\\tools\\spec.exe', original_filename: 'spec.exe' }), content);
    assert.equal(stored.statusCode, 200, stored.body);
  });
  after(async () => {
    await test.close();
    rmSync(feedDir, { recursive: true, force: true });
  });

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    test.app.inject({ method, url, headers: as(test.adminToken), ...(payload === undefined ? {} : { payload: payload as object }) });
  const ok = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => {
    const response = await call(method, url, payload);
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return response.json();
  };
  type Reply = { total_results: number; results: Record<string, unknown>[]; facets: Record<string, { name: string; value: number; percent: number; ratio: number }[]> };
  /** A process search as cbapi sends it (L187: `cb.urlver=1` always). */
  const search = (params: Params): Promise<Reply> => ok('GET', `/api/v1/process?${queryString({ 'cb.urlver': 1, ...params })}`);
  const found = async (q: string) => names((await search({ q, 'cb.group': 'id', rows: 100 })).results).sort();

  describe('query language (L19-L27)', () => {
    let feedId: number;
    it('L23, L25: `<field>:<value>` on each process field the specification names', async () => {
      assert.deepEqual(await found('process_name:cmd.exe'), ['cmd.exe']);
      assert.deepEqual(await found('cmdline:whoami'), ['cmd.exe']);
      assert.deepEqual(await found('hostname:web-01'), ['bash', 'cron', 'nginx']);
      assert.deepEqual(await found('username:root'), ['nginx']);
    });

    it('L24: terms separated by a single space must all match', async () => {
      assert.deepEqual(await found('process_name:cmd.exe hostname:win-acct-01'), ['cmd.exe']);
      assert.deepEqual(await found('process_name:cmd.exe hostname:web-01'), []);
    });

    it('L26: backslashes are literal characters, percent-encoded in the URL', async () => {
      const reply = await ok('GET', '/api/v1/process?cb.urlver=1&cb.group=id&rows=100&q=username%3ACORP%5Calice');
      assert.deepEqual(names(reply.results).sort(), ['cmd.exe', 'explorer.exe', 'powershell.exe']);
    });

    it('L27: `title:<value>` finds threat reports', async () => {
      const feed = cbfeed('specintel', [
        { id: 'spec-1', title: 'Dropper seen', iocs: { md5: ['0'.repeat(32)] } },
        { id: 'spec-2', title: 'Beacon seen', iocs: { md5: ['1'.repeat(32)] } },
      ]);
      feedId = (await ok('POST', '/api/v1/feed', { feed_url: writeFeedFile(feedDir, 'specintel.json', feed) })).id;
      const reply = await ok('GET', `/api/v1/threat_report?${queryString({ q: 'title:dropper', rows: 10 })}`);
      assert.deepEqual(reply.results.map((r: { title: string }) => r.title), ['Dropper seen']);
    });

    it('L146, L179: the ignored flag is set over a report query, on the feed\'s reports matching a title query; L131: feeds synchronize', async () => {
      const query = `cb.urlver=1&q=${encodeURIComponent(`feed_id:${feedId} title:dropper`)}`;
      assert.deepEqual(await ok('POST', '/api/v1/threat_report', { query, updates: { is_ignored: true } }), { result: 'success' });
      const ignored = await ok('GET', `/api/v1/threat_report?${queryString({ q: 'is_ignored:true', rows: 10 })}`);
      assert.deepEqual(ignored.results.map((r: { title: string }) => r.title), ['Dropper seen']);
      await ok('POST', `/api/v1/feed/${feedId}/synchronize`, {});
    });
  });

  describe('users and sensor groups (L31-L50, L156-L159)', () => {
    it('L35-L42, L156: a user created with id null and an empty teams array answers {result: "success"}', async () => {
      const user = {
        id: null, username: 'spec-analyst', password: 'correct horse battery', first_name: 'Spec', last_name: 'Analyst',
        email: 'spec@example.org', teams: [], global_admin: false,
      };
      assert.deepEqual(await ok('POST', '/api/user', user), { result: 'success' });
      const read = await ok('GET', '/api/user/spec-analyst');
      assert.deepEqual(
        [read.username, read.first_name, read.last_name, read.email, read.teams, read.global_admin],
        ['spec-analyst', 'Spec', 'Analyst', 'spec@example.org', [], false],
      );
    });

    it('L48-L50, L158: a group created with id null answers {id: integer} only; L159: read back', async () => {
      const created = await ok('POST', '/api/group', { id: null, name: 'Spec Group', site_id: 1 });
      assert.deepEqual(Object.keys(created), ['id']);
      assert.ok(Number.isInteger(created.id));
      const read = await ok('GET', `/api/group/${created.id}`);
      const record = Array.isArray(read) ? read[0] : read;
      assert.deepEqual([record.id, record.name, record.site_id], [created.id, 'Spec Group', 1]);
    });
  });

  describe('sensors (L52-L62, L141-L142, L160-L161, L175-L176, L236)', () => {
    it('L56-L59, L161: id, boot_id, build_id and a build_version_string of groups 3.3.3.5 digits', async () => {
      const sensor = await ok('GET', `/api/v1/sensor/${fleet.windows.id}`);
      assert.equal(sensor.id, fleet.windows.id);
      assert.equal(typeof sensor.boot_id, 'string');
      assert.ok(Number.isInteger(sensor.build_id));
      assert.match(sensor.build_version_string, BUILD_VERSION);
    });

    it('L60, L176: a sensor is found by its hostname; L236: the v1 listing is one unpaginated array', async () => {
      const byName = await ok('GET', '/api/v1/sensor?hostname=WIN-ACCT-01');
      assert.deepEqual(byName.map((s: { id: number }) => s.id), [fleet.windows.id]);
      const all = await ok('GET', '/api/v1/sensor');
      assert.deepEqual(all.map((s: { id: number }) => s.id).sort(), [fleet.windows.id, fleet.linux.id].sort());
    });

    it('L62, L141-L142, L160: the full record PUT back answers 204 with no body, isolating and moving the sensor', async () => {
      const record = await ok('GET', `/api/v1/sensor/${fleet.windows.id}`);
      const isolate = await call('PUT', `/api/v1/sensor/${fleet.windows.id}`, { ...record, network_isolation_enabled: true, group_id: fleet.serversGroup });
      assert.equal(isolate.statusCode, 204, isolate.body);
      assert.equal(isolate.body, '');
      const read = await ok('GET', `/api/v1/sensor/${fleet.windows.id}`);
      assert.deepEqual([read.network_isolation_enabled, read.group_id], [true, fleet.serversGroup]);
      assert.match(read.build_version_string, BUILD_VERSION, 'the record read back keeps the format');
      const restore = await call('PUT', `/api/v1/sensor/${fleet.windows.id}`, { ...read, network_isolation_enabled: false, group_id: 1 });
      assert.equal(restore.statusCode, 204, restore.body);
      const restored = await ok('GET', `/api/v1/sensor/${fleet.windows.id}`);
      assert.deepEqual([restored.network_isolation_enabled, restored.group_id], [false, 1]);
    });
  });

  describe('banned hashes (L64-L70, L162-L163, L211-L216)', () => {
    const md5hash = 'f'.repeat(32);

    it('L162: {md5hash, text} answers {result: string}; L163: read back enabled', async () => {
      const created = await ok('POST', '/api/v1/banning/blacklist', { md5hash, text: 'Spec example ban' });
      assert.deepEqual(Object.keys(created), ['result']);
      assert.equal(typeof created.result, 'string');
      const read = await ok('GET', `/api/v1/banning/blacklist/${md5hash}`);
      assert.match(read.md5hash, MD5);
      assert.deepEqual([read.md5hash.toLowerCase(), read.text, read.enabled], [md5hash, 'Spec example ban', true]);
    });

    it('L213: banning it again is an error whose message says the banned hash already exists', async () => {
      const again = await call('POST', '/api/v1/banning/blacklist', { md5hash, text: 'again' });
      assert.ok(again.statusCode >= 400 && again.statusCode < 500, again.body);
      assert.match(again.json().message, new RegExp(`${md5hash}.*already exists`, 'iu'));
    });
  });

  describe('binaries (L72-L83, L164)', () => {
    it('L76-L80, L164: the summary by md5, unsigned as "(Unknown)", the signed one with its signing data', async () => {
      const unknown = await ok('GET', `/api/v1/binary/${contentMd5}/summary`);
      assert.match(unknown.md5, MD5);
      assert.equal(unknown.md5.toLowerCase(), contentMd5.toLowerCase());
      assert.equal(unknown.original_filename, 'spec.exe');
      assert.equal(unknown.digsig_result, '(Unknown)', 'not signed');
      const cmd = await search({ q: 'process_name:cmd.exe', 'cb.group': 'id', rows: 1 });
      const signed = await ok('GET', `/api/v1/binary/${String(cmd.results[0]!.process_md5)}/summary`);
      assert.equal(signed.digsig_result, 'Signed');
      assert.equal(signed.digsig_publisher, 'Microsoft Corporation');
      assert.equal(Date.parse(signed.digsig_sign_time), Date.parse('2024-03-01T00:00:00Z'));
    });

    it('L81: the content is retrievable as bytes, a Windows executable starting with "MZ"', async () => {
      const response = await call('GET', `/api/v1/binary/${contentMd5}`);
      assert.equal(response.statusCode, 200, response.body);
      const filedata = zipMember(response.rawPayload, 'filedata');
      assert.equal(filedata.subarray(0, 2).toString('ascii'), 'MZ');
      assert.deepEqual(filedata, content);
    });
  });

  describe('processes and their segments (L85-L107, L166, L234)', () => {
    it('L89-L96: a search result carries the process fields, the username possibly empty', async () => {
      const reply = await search({ q: 'hostname:web-01', 'cb.group': 'id', rows: 100, sort: 'last_update desc' });
      for (const doc of reply.results) {
        assert.match(String(doc.id), PROCESS_ID);
        assert.ok(Number.isInteger(doc.segment_id));
        assert.ok(!Number.isNaN(Date.parse(String(doc.start))));
        for (const field of ['username', 'cmdline', 'hostname', 'process_md5', 'process_name']) assert.equal(typeof doc[field], 'string', field);
      }
      const cron = reply.results.find((doc) => doc.process_name === 'cron');
      assert.equal(cron?.username, '');
    });

    it('L102: a search returns one record per matching segment, the same id with different segments; L105, L194: cb.group=id one per process', async () => {
      const segments = await search({ q: 'process_name:cmd.exe', rows: 100 });
      assert.equal(segments.total_results, 2);
      const [first, second] = segments.results;
      assert.equal(first!.id, second!.id);
      assert.notEqual(first!.segment_id, second!.segment_id);
      const grouped = await search({ q: 'process_name:cmd.exe', rows: 100, 'cb.group': 'id' });
      assert.equal(grouped.total_results, 1);
      assert.equal(grouped.results.length, 1);
    });

    it('L98: the parent is reached by the event records of the parent\'s id and segment', async () => {
      const [cmd] = (await search({ q: 'process_name:cmd.exe', rows: 1, 'cb.group': 'id' })).results;
      const parentUniqueId = String(cmd!.parent_unique_id);
      const parentId = String(cmd!.parent_id);
      assert.ok(parentUniqueId.startsWith(`${parentId}-`));
      const segment = Number.parseInt(parentUniqueId.slice(parentId.length + 1), 16);
      const parent = await ok('GET', `/api/v3/process/${parentId}/${segment}/event`);
      assert.equal(parent.process.process_name, 'explorer.exe');
    });

    it('L166, L234: segment 0 returns the events of every segment of the process', async () => {
      const [cmd] = (await search({ q: 'process_name:cmd.exe', rows: 1, 'cb.group': 'id' })).results;
      const stored = await storedSegments(test, fleet.windows.id, 4242);
      assert.equal(stored.length, 2);
      const eventsOf = async (segment: number | string) => {
        const { process } = await ok('GET', `/api/v3/process/${String(cmd!.id)}/${segment}/event`);
        return ['filemod_complete', 'regmod_complete', 'netconn_complete', 'modload_complete', 'childproc_complete', 'crossproc_complete']
          .flatMap((list) => (process[list] ?? []) as unknown[]);
      };
      const perSegment = [];
      for (const { segmentId } of stored) perSegment.push(...(await eventsOf(segmentId)));
      const all = await eventsOf(0);
      assert.equal(all.length, 6, 'filemod, regmod, netconn, modload, childproc and crossproc');
      assert.deepEqual([...all].map(String).sort(), perSegment.map(String).sort());
    });
  });

  describe('process search parameters (L183-L199, L223)', () => {
    it('L189, L190: facet=true with facet.field process_name and username, counted from the data', async () => {
      const reply = await search({ q: 'hostname:win-acct-01', facet: 'true', 'facet.field': ['process_name', 'username'], rows: 0, start: 0 });
      assert.deepEqual(Object.keys(reply.facets).sort(), ['process_name', 'username']);
      assert.equal(reply.total_results, 4, 'explorer.exe, powershell.exe and the two segments of cmd.exe');
      assert.deepEqual(reply.facets.process_name!.map((e) => [e.name, e.value]), [['cmd.exe', 2], ['explorer.exe', 1], ['powershell.exe', 1]]);
      assert.deepEqual(reply.facets.username!.map((e) => [e.name, e.value]), [['CORP\\alice', 2], ['CORP\\Alice', 2]]);
    });

    it('L199: facet entries carry name, ratio and percent, percent the share of the result set', async () => {
      const reply = await search({ q: 'hostname:win-acct-01', facet: 'true', 'facet.field': 'process_name', rows: 0 });
      const [top] = reply.facets.process_name!;
      assert.deepEqual(top, { name: 'cmd.exe', value: 2, percent: 50, ratio: 50 });
      for (const entry of reply.facets.process_name!) assert.equal(entry.percent, Math.round((entry.value / reply.total_results) * 100));
    });

    it('L189: facet=false is a plain search, with no facets', async () => {
      const reply = await search({ q: 'process_name:cmd.exe', facet: 'false', rows: 100, start: 0 });
      assert.deepEqual(reply.facets, {});
      assert.equal(reply.results.length, 2);
    });

    it('L191, L223: rows=0 returns no rows but the count; rows=100 is a page of up to 100', async () => {
      const count = await search({ q: '', facet: 'false', rows: 0, start: 0 });
      assert.deepEqual(count.results, []);
      assert.equal(count.total_results, 7);
      const page = await search({ q: '', facet: 'false', rows: 100, start: 0 });
      assert.equal(page.results.length, 7);
    });

    it('L192: start is the offset of the first row, from 0', async () => {
      const all = await search({ q: '', rows: 100, start: 0, sort: 'last_update desc' });
      const rest = await search({ q: '', rows: 100, start: 2, sort: 'last_update desc' });
      assert.deepEqual(rest.results.map((r) => r.unique_id), all.results.slice(2).map((r) => r.unique_id));
    });

    it('L193: sort=last_update desc orders by the last update, newest first', async () => {
      const reply = await search({ q: '', rows: 100, start: 0, sort: 'last_update desc' });
      const updates = reply.results.map((r) => Date.parse(String(r.last_update)));
      assert.deepEqual(updates, [...updates].sort((a, b) => b - a));
    });

    it('L195: cb.min_last_update=YYYY-MM-DDTHH:MM:SSZ keeps processes with events after it on the sensor clock', async () => {
      // nginx (09:00 + 1 min) and explorer.exe (09:59:00 + 30 s) have no events from 10:00:00 on.
      assert.deepEqual(
        names((await search({ q: '', 'cb.group': 'id', rows: 100, 'cb.min_last_update': '2026-11-20T10:00:00Z' })).results).sort(),
        ['bash', 'cmd.exe', 'cron', 'powershell.exe'],
      );
    });

    it('L197: max_last_update and the server-clock pair restrict too', async () => {
      assert.deepEqual(
        names((await search({ q: '', 'cb.group': 'id', rows: 100, 'cb.max_last_update': '2026-11-20T09:59:59Z' })).results).sort(),
        ['explorer.exe', 'nginx'],
      );
      const now = Date.now();
      const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/u, 'Z');
      assert.equal((await search({ q: '', rows: 0, 'cb.min_last_server_update': iso(now - 3_600_000) })).total_results, 7);
      assert.equal((await search({ q: '', rows: 0, 'cb.max_last_server_update': iso(now - 3_600_000) })).total_results, 0);
    });
  });

  describe('watchlists (L109-L127, L143-L144, L167-L169, L232)', () => {
    const searchQuery = 'cb.urlver=1&facet=false&q=process_name%3Acmd.exe&sort=last_update%20desc';
    let id: number;

    it('L167: {id: null, index_type, name, search_query} answers {id: integer} only', async () => {
      const created = await ok('POST', '/api/v1/watchlist', { id: null, index_type: 'events', name: 'Spec shells', search_query: searchQuery });
      assert.deepEqual(Object.keys(created), ['id']);
      assert.ok(Number.isInteger(created.id));
      id = created.id;
    });

    it('L113-L127, L168: the record read back, with the date formats of L122 and L124', async () => {
      const read = await ok('GET', `/api/v1/watchlist/${id}`);
      // L113 says an integer; recorded 6.2 servers answer the id as a string in a GET (cb-edr-api-admin.md §1.2).
      assert.equal(Number(read.id), id);
      assert.equal(read.name, 'Spec shells');
      assert.equal(read.index_type, 'events');
      assert.equal(read.search_query, searchQuery, 'L116, L232: facet, q, cb.urlver=1 and sort, stored as sent');
      assert.deepEqual([read.enabled, read.alliance_id, read.from_alliance, read.group_id, read.readonly], [true, null, false, -1, false]);
      assert.match(read.date_added, RECORD_TIME);
      assert.match(read.search_timestamp, SEARCH_TIME);
      assert.ok(Number.isInteger(read.last_hit_count));
      assert.match(read.total_hits, /^\d+$/u);
      assert.match(read.total_tags, /^\d+$/u);
    });

    it('L123: last_hit, once the watchlist hit, is in the format of date_added', async () => {
      const [segment] = await storedSegments(test, fleet.windows.id, 4242);
      await test.container.services.detection.watchlistRan({ watchlistId: id, ranAtMs: Date.now(), segments: [segment!.segmentRow], cursor: 'spec' });
      const read = await ok('GET', `/api/v1/watchlist/${id}`);
      assert.match(read.last_hit, RECORD_TIME);
      assert.match(read.search_timestamp, SEARCH_TIME);
      assert.deepEqual([read.total_hits, read.last_hit_count], ['1', 1]);
    });

    it('L143-L144, L169: the full record PUT with enabled false disables it, with true enables it; {result: string}', async () => {
      for (const enabled of [false, true]) {
        const read = await ok('GET', `/api/v1/watchlist/${id}`);
        const reply = await ok('PUT', `/api/v1/watchlist/${id}`, { ...read, id: String(id), enabled });
        assert.deepEqual(Object.keys(reply), ['result']);
        assert.equal(typeof reply.result, 'string');
        const after = await ok('GET', `/api/v1/watchlist/${id}`);
        assert.equal(after.enabled, enabled);
        assert.equal(after.search_query, searchQuery, 'other fields unchanged');
      }
    });
  });
});

/** One member of a zip archive (stored or deflated), found through the central directory. */
function zipMember(archive: Buffer, name: string): Buffer {
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  let at = archive.readUInt32LE(end + 16);
  for (let entry = 0; entry < archive.readUInt16LE(end + 10); entry++) {
    const [method, size, nameLength] = [archive.readUInt16LE(at + 10), archive.readUInt32LE(at + 20), archive.readUInt16LE(at + 28)];
    const local = archive.readUInt32LE(at + 42);
    if (archive.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const start = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
      const data = archive.subarray(start, start + size);
      return method === 8 ? inflateRawSync(data) : data;
    }
    at += 46 + nameLength + archive.readUInt16LE(at + 30) + archive.readUInt16LE(at + 32);
  }
  throw new Error(`no ${name} in the archive`);
}
