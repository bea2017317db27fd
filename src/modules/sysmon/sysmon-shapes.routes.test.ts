/**
 * Every input shape the JSON-lines endpoint reads, on the same real recording converted to it
 * (test/support/sysmon-shapes.ts): Winlogbeat/ECS, evtx_dump JSON, Sysmon for Linux's event
 * XML in syslog messages, and the unnamed values of Fluent Bit's Windows records and of
 * `Get-WinEvent | ConvertTo-Json`. Each must tell the analyst the same story as the flat original.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../../test/support/app.js';
import { searchProcesses } from '../../../test/support/search.js';
import { recordingEvents } from '../../../test/support/sysmon-fixtures.js';
import { toEcs, toEventJson, toFluentBit, toGetWinEvent, toSyslogXml } from '../../../test/support/sysmon-shapes.js';

const RECORDING = 'psh_lsass_memory_dump_comsvcs';

describe('Sysmon input shapes', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(async () => test.close());

  /** Each shape into a group of its own, so the hosts do not meet. */
  async function ingest(name: string, documents: Record<string, unknown>[]) {
    const group = (await test.app.inject({ method: 'POST', url: '/api/group', headers: as(test.adminToken), payload: { name, site_id: 1 } })).json();
    const { key } = (await test.app.inject({ method: 'POST', url: `/api/v1/group/${group.id}/ingest_key`, headers: as(test.adminToken), payload: {} })).json();
    const response = await test.app.inject({
      method: 'POST', url: '/ingest/v1/sysmon', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
      payload: documents.map((d) => JSON.stringify(d)).join('\n'),
    });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  }

  async function assertAttackFound(sensorId: number) {
    const found = await searchProcesses(test, { q: `sensor_id:${sensorId} process_name:rundll32.exe cmdline:minidump` });
    assert.equal(found.total_results, 1);
    const rundll = found.results[0]!;
    assert.equal(rundll.process_pid, 4824);
    assert.equal(rundll.parent_pid, 6100);
    assert.equal(rundll.parent_name, 'powershell.exe');
    assert.equal(rundll.process_md5, 'f68af942fd7ccc0e7bab1a2335d2ad26');
    const lsass = await searchProcesses(test, { q: `sensor_id:${sensorId} crossproc_name:rundll32.exe` });
    assert.ok(lsass.results.some((r) => r.process_pid === 756));
  }

  const flat = recordingEvents(RECORDING);
  const sysmonCount = flat.filter((r) => r.Channel === 'Microsoft-Windows-Sysmon/Operational' && [1, 5, 7, 10, 11, 12, 13].includes(Number(r.EventID))).length;

  it('Winlogbeat/ECS documents, from winlog.event_data', async () => {
    const reply = await ingest('Shape ECS', flat.map(toEcs));
    assert.ok(reply.stored >= sysmonCount, `${reply.stored} of ${sysmonCount}`);
    assert.ok(reply.skipped.covered_by_sysmon > 0, 'ECS times are UTC, so the Security process events were readable, and dropped');
    await assertAttackFound(reply.hosts[0].sensor_id);
  });

  it('evtx_dump JSON', async () => {
    const reply = await ingest('Shape evtx', flat.map(toEventJson));
    assert.ok(reply.stored >= sysmonCount);
    await assertAttackFound(reply.hosts[0].sensor_id);
  });

  const UNNAMED_VALUES = [
    ["Fluent Bit's Windows input (StringInserts)", toFluentBit],
    ['Get-WinEvent | ConvertTo-Json (Properties)', toGetWinEvent],
  ] as const;
  for (const [shape, convert] of UNNAMED_VALUES) {
    it(`${shape}: names from the rendered Message, Security's from their templates`, async () => {
      const reply = await ingest(`Shape ${shape}`, flat.map(convert));
      assert.ok(reply.stored >= sysmonCount, `${reply.stored} of ${sysmonCount}`);
      assert.equal(reply.skipped.unnamed_fields, undefined, JSON.stringify(reply.errors.slice(0, 3)));
      assert.ok(reply.skipped.covered_by_sysmon > 0, 'the Security process events were named by their templates, and dropped');
      await assertAttackFound(reply.hosts[0].sensor_id);
    });
  }

  it("Fluent Bit's typed inserts keep a connection's direction (Initiated is a boolean there)", async () => {
    const bits = recordingEvents('cmd_bitsadmin_download_psh_script');
    const netconns = async (documents: Record<string, unknown>[], name: string) => {
      const reply = await ingest(name, documents);
      const found = await searchProcesses(test, { q: `sensor_id:${reply.hosts[0].sensor_id} netconn_count:[1 TO *]` });
      const lists = await Promise.all(found.results.map(async (r) => {
        const events = await test.app.inject({ url: `/api/v1/process/${r.id}/${r.segment_id}/event`, headers: as(test.adminToken) });
        return (events.json().process.netconn_complete as string[]).map((c) => c.split('|').slice(1).join('|'));
      }));
      return lists.flat().sort();
    };
    const flatConnections = await netconns(bits, 'Shape flat connections');
    assert.ok(flatConnections.some((c) => c.endsWith('|false')) && flatConnections.some((c) => c.endsWith('|true')), 'inbound and outbound');
    assert.deepEqual(await netconns(bits.map(toFluentBit), 'Shape Fluent Bit connections'), flatConnections);
  });

  it('refuses Fluent Bit inserts its Message does not name one to one, and keeps the events beside it', async () => {
    const good = toFluentBit(flat.find((r) => r.EventID === 1)!);
    const other = toFluentBit(flat.find((r) => r.EventID === 10)!);
    const short = { ...other, StringInserts: (other.StringInserts as unknown[]).slice(1) };
    const unknownSecurity = { ...toFluentBit(flat.find((r) => r.EventID === 4688)!), StringInserts: ['S-1-5-18', 'x'] };
    const reply = await ingest('Shape Fluent Bit refused', [short, good, unknownSecurity]);
    assert.deepEqual(reply.skipped, { unnamed_fields: 2 });
    assert.equal(reply.stored, 1);
    assert.deepEqual(reply.errors.map((e: { line: number }) => e.line), [1, 3]);
  });

  it('Sysmon for Linux: the event XML in a syslog message, the host a Linux sensor', async () => {
    const sysmon = flat.filter((r) => r.Channel === 'Microsoft-Windows-Sysmon/Operational');
    const reply = await ingest('Shape syslog XML', sysmon.map((r) => toSyslogXml(r, 'Linux-Sysmon/Operational')));
    assert.equal(reply.read, sysmon.length);
    assert.ok(reply.stored >= sysmonCount);
    await assertAttackFound(reply.hosts[0].sensor_id);
    const sensor = (await test.app.inject({ url: `/api/v1/sensor/${reply.hosts[0].sensor_id}`, headers: as(test.adminToken) })).json();
    assert.equal(sensor.os_type, 3, 'Linux');
  });

  it('refuses unreadable XML by name, and keeps the events beside it', async () => {
    const [good] = flat.filter((r) => r.EventID === 1).map((r) => toSyslogXml(r));
    const truncated = { message: String(good!.message).slice(0, 200) };
    const notAnEvent = { message: '<Event><Other/></Event>' };
    const reply = await ingest('Shape bad XML', [truncated, good!, notAnEvent]);
    assert.deepEqual(reply.skipped, { malformed_xml: 2 });
    assert.equal(reply.stored, 1);
    assert.deepEqual(reply.errors.map((e: { line: number }) => e.line), [1, 3]);
  });
});
