/** Ingress filters over HTTP, as cbapi and the reference (admin §6) use them. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, createUser, startTestApp, type TestApp } from '../../../test/support/app.js';

/** Every field of reference admin §6.2 (and cbapi's spelling of cmdline_filters), with its JSON type (hit_rate: 0 until measured). */
const FIELD_TYPES: Record<string, string> = {
  id: 'string', name: 'string', description: 'string', enabled: 'boolean', priority: 'integer', version: 'integer',
  internal: 'boolean', global: 'boolean', group_ids: 'array', sensor_ids: 'array', os_mask: 'integer',
  path_filters: 'array', cmdline_filters: 'array', command_line_filters: 'array', md5_filters: 'array',
  descendant_filtering_level: 'integer', filter_all_events: 'boolean', regmod_filters: 'array', modload_filters: 'array',
  filemod_filters: 'array', non_binary_filemod_filters: 'array', netconn_filters: 'array', crossproc_filters: 'array',
  filter_on_sensor: 'boolean', filter_on_server: 'boolean', track_metrics: 'boolean', hit_rate: 'integer',
  create_timestamp: 'string', modify_timestamp: 'string', create_user_id: 'integer', modify_user_id: 'integer',
};

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

const URL = '/api/v1/ingress_whitelist';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('ingress filters API', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const admin = () => as(test.adminToken);
  const create = async (filter: Record<string, unknown>): Promise<string> => {
    const created = await test.app.inject({ method: 'POST', url: URL, headers: admin(), payload: [filter] });
    assert.equal(created.statusCode, 200, created.body);
    const ids = created.json() as string[];
    assert.equal(ids.length, 1);
    return ids[0]!;
  };
  const read = async (id: string) => (await test.app.inject({ url: `${URL}/${id}`, headers: admin() })).json();

  it('creates from an array of one, answers an array of ids, and reads back every field with its default', async () => {
    const created = await test.app.inject({ method: 'POST', url: URL, headers: admin(), payload: [{ name: 'Notepad' }] });
    assert.equal(created.statusCode, 200);
    const ids = created.json();
    assert.ok(Array.isArray(ids));
    assert.equal(ids.length, 1);
    assert.match(ids[0], UUID);

    const filter = await read(ids[0]);
    assert.deepEqual(Object.keys(filter).sort(), Object.keys(FIELD_TYPES).sort());
    for (const [field, type] of Object.entries(FIELD_TYPES)) assert.equal(jsonType(filter[field]), type, field);
    const { create_timestamp: createdAt, modify_timestamp: modifiedAt, ...rest } = filter;
    assert.ok(!Number.isNaN(Date.parse(createdAt)));
    assert.equal(modifiedAt, createdAt);
    assert.deepEqual(rest, {
      id: ids[0], name: 'Notepad', description: '', enabled: true, priority: 0, version: 0, internal: false, global: true,
      group_ids: [], sensor_ids: [], os_mask: 7, path_filters: [], cmdline_filters: [], command_line_filters: [],
      md5_filters: [], descendant_filtering_level: 0, filter_all_events: true, regmod_filters: [], modload_filters: [],
      filemod_filters: [], non_binary_filemod_filters: [], netconn_filters: [], crossproc_filters: [],
      filter_on_sensor: false, filter_on_server: true, track_metrics: true, hit_rate: 0, create_user_id: 1, modify_user_id: 1,
    });
  });

  it('keeps a client id made of letters, digits and dashes, and replaces any other', async () => {
    assert.equal(await create({ id: 'legacy-filter-process', name: 'Legacy' }), 'legacy-filter-process');
    for (const id of ['has space', 'under_score', 'x'.repeat(65), '', null]) {
      assert.match(await create({ id, name: `odd id ${String(id).length}` }), UUID, JSON.stringify(id));
    }
    const duplicate = await test.app.inject({
      method: 'POST', url: URL, headers: admin(), payload: [{ id: 'legacy-filter-process', name: 'Again' }],
    });
    assert.equal(duplicate.statusCode, 409);
    assert.equal((await read('legacy-filter-process')).name, 'Legacy');
  });

  it('stores every field given, and reads command_line_filters as cmdline_filters', async () => {
    const fields = {
      name: 'Acme agent', description: 'noise', enabled: false, priority: -2, version: 3, internal: true, global: false,
      group_ids: [1], sensor_ids: [12, 13], os_mask: 5, path_filters: ['**/acme*.exe'], md5_filters: ['5A18F00AB9330AC7539675F3F326CF11'],
      descendant_filtering_level: -1, filter_all_events: false, regmod_filters: ['rx|acme'], modload_filters: ['**/acme.dll'],
      filemod_filters: ['**/*.log'], non_binary_filemod_filters: ['c:\\temp\\**'], netconn_filters: ['acme.com'],
      crossproc_filters: ['**/lsass.exe'], filter_on_sensor: true, filter_on_server: false, track_metrics: false,
    };
    const id = await create({ ...fields, command_line_filters: ['rxi|--quiet'], hit_rate: 0.5, create_user_id: 99 });
    const filter = await read(id);
    assert.deepEqual({ ...filter, ...fields }, filter);
    assert.deepEqual(filter.cmdline_filters, ['rxi|--quiet']);
    assert.deepEqual(filter.command_line_filters, ['rxi|--quiet']);
    assert.equal(filter.hit_rate, 0);
    assert.equal(filter.create_user_id, 1);
  });

  it('lists filters under both the 6.x and the 7.7 path', async () => {
    const id = await create({ name: 'Listed' });
    const lists = await Promise.all([URL, '/api/v1/ingress_approvedlist'].map((url) => test.app.inject({ url, headers: admin() })));
    assert.deepEqual(lists.map((l) => l.statusCode), [200, 200]);
    assert.deepEqual(lists[0]!.json(), lists[1]!.json());
    assert.deepEqual((lists[0]!.json() as { id: string }[]).find((f) => f.id === id), await read(id));
    const approved = await test.app.inject({
      method: 'POST', url: '/api/v1/ingress_approvedlist', headers: admin(), payload: [{ name: 'Approved' }],
    });
    assert.equal((await read(approved.json()[0])).name, 'Approved');
  });

  it('updates with a single object (cbapi PUTs it as read), keeping what was not sent', async () => {
    const id = await create({ name: 'Before', path_filters: ['**/a.exe'], priority: 4 });
    const before = await read(id);
    const put = await test.app.inject({
      method: 'PUT', url: `${URL}/${id}`, headers: admin(),
      payload: { ...before, id: 'ignored', name: 'After', enabled: false, hit_rate: 0.9, create_user_id: 42 },
    });
    assert.equal(put.statusCode, 200);
    assert.deepEqual(put.json(), { result: 'success' });
    const afterPut = await read(id);
    assert.equal(afterPut.id, id);
    assert.equal(afterPut.name, 'After');
    assert.equal(afterPut.enabled, false);
    assert.equal(afterPut.priority, 4);
    assert.equal(afterPut.create_user_id, 1);
    assert.equal(afterPut.create_timestamp, before.create_timestamp);
    assert.ok(afterPut.modify_timestamp >= before.modify_timestamp);

    const partial = await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { os_mask: 4 } });
    assert.equal(partial.statusCode, 200);
    const afterPartial = await read(id);
    assert.deepEqual(afterPartial, { ...afterPut, os_mask: 4, modify_timestamp: afterPartial.modify_timestamp });

    // A client that changed command_line_filters on the object it read sends both spellings.
    const asRead = await read(id);
    await test.app.inject({
      method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { ...asRead, command_line_filters: ['rx|nightly'] },
    });
    assert.deepEqual((await read(id)).cmdline_filters, ['rx|nightly']);
  });

  it('deletes, and answers 404 for an unknown id', async () => {
    const id = await create({ name: 'Doomed' });
    const deleted = await test.app.inject({ method: 'DELETE', url: `${URL}/${id}`, headers: admin() });
    assert.equal(deleted.statusCode, 200);
    assert.deepEqual(deleted.json(), { result: 'success' });
    const missing = [
      await test.app.inject({ url: `${URL}/${id}`, headers: admin() }),
      await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { name: 'x' } }),
      await test.app.inject({ method: 'DELETE', url: `${URL}/${id}`, headers: admin() }),
    ];
    assert.deepEqual(missing.map((r) => r.statusCode), [404, 404, 404]);
  });

  it('rejects an invalid regex with a 400 naming the field and index, on create and update', async () => {
    const bad = await test.app.inject({
      method: 'POST', url: URL, headers: admin(), payload: [{ name: 'Bad rx', modload_filters: ['**/a.dll', 'rxi|(unclosed'] }],
    });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().message, /modload_filters\[1\]/);
    const id = await create({ name: 'Good rx' });
    const badPut = await test.app.inject({
      method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { cmdline_filters: ['rx|[a-'] },
    });
    assert.equal(badPut.statusCode, 400);
    assert.match(badPut.json().message, /cmdline_filters\[0\]/);
    assert.deepEqual((await read(id)).cmdline_filters, []);
    const list = (await test.app.inject({ url: URL, headers: admin() })).json() as { name: string }[];
    assert.ok(!list.some((f) => f.name === 'Bad rx'));
  });

  it('rejects a body of the wrong shape or types with a 400 naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: 'not an array' }, /array/],
      [[], /fewer than 1/],
      [[{ description: 'no name' }], /name/],
      [[{ name: 'x', enabled: 'sometimes' }], /enabled/],
      [[{ name: 'x', priority: 'high' }], /priority/],
      [[{ name: 'x', os_mask: 8 }], /os_mask/],
      [[{ name: 'x', descendant_filtering_level: -2 }], /descendant_filtering_level/],
      [[{ name: 'x', group_ids: ['one'] }], /group_ids/],
      [[{ name: 'x', path_filters: [{ glob: '*' }] }], /path_filters/],
    ];
    for (const [payload, field] of cases) {
      const response = await test.app.inject({ method: 'POST', url: URL, headers: admin(), payload: payload as object });
      assert.equal(response.statusCode, 400, JSON.stringify(payload));
      assert.match(response.json().message, field, JSON.stringify(payload));
    }
    const id = await create({ name: 'Typed' });
    const put = await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { sensor_ids: 'all' } });
    assert.equal(put.statusCode, 400);
    assert.match(put.json().message, /sensor_ids/);
  });

  it('lets any user read, and only global admins write', async () => {
    const id = await create({ name: 'Guarded' });
    const token = await createUser(test, { username: 'ingress-viewer' });
    assert.equal((await test.app.inject({ url: URL, headers: as(token) })).statusCode, 200);
    assert.equal((await test.app.inject({ url: `${URL}/${id}`, headers: as(token) })).json().name, 'Guarded');
    const writes = [
      await test.app.inject({ method: 'POST', url: URL, headers: as(token), payload: [{ name: 'Mine' }] }),
      await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: as(token), payload: { name: 'Renamed' } }),
      await test.app.inject({ method: 'DELETE', url: `${URL}/${id}`, headers: as(token) }),
    ];
    assert.deepEqual(writes.map((r) => r.statusCode), [403, 403, 403]);
    assert.equal((await read(id)).name, 'Guarded');

    const otherAdmin = await createUser(test, { username: 'ingress-admin', global_admin: true });
    const put = await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: as(otherAdmin), payload: { priority: 1 } });
    assert.equal(put.statusCode, 200);
    const changed = await read(id);
    assert.equal(changed.create_user_id, 1);
    assert.notEqual(changed.modify_user_id, 1);
  });

  it('answers 401 without a token', async () => {
    assert.equal((await test.app.inject({ url: URL })).statusCode, 401);
    assert.equal((await test.app.inject({ method: 'POST', url: URL, payload: [{ name: 'x' }] })).statusCode, 401);
    assert.equal((await test.app.inject({ url: '/api/v1/ingress_approvedlist/x' })).statusCode, 401);
  });

  it('gives the pipeline compiled filters that follow every write, and shows the hit rate it reports', async () => {
    const service = test.container.services.ingressFilters;
    const scope = { sensorId: 1, groupId: 1, osType: 'windows' as const };
    const process = { path: 'c:\\tools\\pipeline-probe.exe', cmdline: '', md5: '' };
    const matching = async () => (await service.compiled()).filter((f) => f.appliesTo(scope) && f.matchesProcess(process)).map((f) => f.id);

    assert.deepEqual(await matching(), []);
    assert.equal(await service.compiled(), await service.compiled());
    const id = await create({ name: 'Probe', path_filters: ['**/pipeline-probe.exe'] });
    assert.deepEqual(await matching(), [id]);
    await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { enabled: false } });
    assert.deepEqual(await matching(), []);
    await test.app.inject({ method: 'PUT', url: `${URL}/${id}`, headers: admin(), payload: { enabled: true } });
    assert.deepEqual(await matching(), [id]);

    service.recordProcessCounts(new Map([[id, { processes: 200, hits: 3 }]]));
    assert.equal((await read(id)).hit_rate, 0.015);

    await test.app.inject({ method: 'DELETE', url: `${URL}/${id}`, headers: admin() });
    assert.deepEqual(await matching(), []);
  });
});
