/**
 * The fast path of `_bulk` bodies read on a reader thread holds to the plain one: the real
 * recordings, sent as Winlogbeat bulk bodies, read on a thread and settled, skip and store what
 * adding each document to a batch on the request thread does (the code before reader threads),
 * and a body that cannot be read is refused by the same name either way. A reader that hands the
 * events to the writer itself hands it, slice by slice, what appending them would have prepared.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { recordingEvents } from '../../../test/support/sysmon-fixtures.js';
import { toEcs } from '../../../test/support/sysmon-shapes.js';
import type { HandedOverBatch } from '../../ingest/event-store.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { FilterGate } from '../../ingest/ingress-gate.js';
import { normalizeEvent } from '../../ingest/normalize.js';
import { EventPreparer, type PreparedProcess } from '../../ingest/prepare.js';
import { IngestRejection, counter } from '../../ingest/rejection.js';
import { validateEvents } from '../../ingest/validate.js';
import { runLine } from '../../ingest/sysmon/bulk-read.js';
import { SysmonDecoder } from '../../ingest/sysmon/sysmon-decoder.js';
import { BulkReaders } from './bulk-readers.js';
import { SysmonBatch, type SysmonSink } from './sysmon-batch.js';

const RECORDINGS = ['cmd_sam_copy_esentutl', 'empire_mimikatz_logonpasswords', 'psh_lsass_memory_dump_comsvcs', 'schtask_create'];
const NOW = Date.parse('2026-11-26T00:00:00Z');
const MAX_DECODED = 64 * 1024 * 1024;

/** JSON keeps no undefined fields; every field reader takes absent and undefined alike. */
const asSent = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** A Security event, which the decoder's memory settles, closes each body, and then a line that is no JSON. */
const SECURITY = { winlog: { event_id: 4688, channel: 'Security', computer_name: 'H', event_data: { NewProcessId: '0x10', NewProcessName: 'C:\\a.exe' } }, '@timestamp': '2026-11-25T10:00:00Z' };

function bulkBody(documents: Record<string, unknown>[]): Buffer {
  const lines = documents.flatMap((document) => ['{"create":{"_index":"logs"}}', JSON.stringify(document)]);
  return gzipSync(`${lines.join('\n')}\nnot json\n`);
}

/** What a batch hands its sink: each host's events and counters, and the files it names. */
async function stored(batch: SysmonBatch): Promise<unknown> {
  const calls: unknown[] = [];
  const sink: SysmonSink = {
    store: async (groupId, host, events, counters) => {
      calls.push({ groupId, host, events, counters: Object.fromEntries(counters) });
      return { sensorId: calls.length, accepted: events.length, filtered: 0, rejected: 0 };
    },
    binariesSeen: async (sensorId, binaries) => void calls.push({ sensorId, binaries }),
    storeHandedOver: () => Promise.reject(new Error('these readers hand nothing over')),
  };
  const reply = await batch.commit(1, sink);
  return asSent({ reply, calls });
}

/** What the pipeline's append() hands the writer for a slice, with no ingress filter in force. */
function preparedAsAppended(events: SensorEvent[], counters: Map<string, number>): { processes: PreparedProcess[]; counters: Record<string, number> } {
  const { valid, rejected } = validateEvents(events);
  for (const { reason } of rejected) counters.set(counter.eventRejected(reason), (counters.get(counter.eventRejected(reason)) ?? 0) + 1);
  for (const event of valid) normalizeEvent(event);
  return { processes: new EventPreparer(new FilterGate()).prepare({ sensorId: 0, groupId: 0, osType: 'windows' }, valid).processes, counters: Object.fromEntries(counters) };
}

/** What a batch stores per host slice, as the writer would receive it (handed over, or through append()). */
async function slicesStored(batch: SysmonBatch, handedOver: ReadonlyMap<string, PreparedProcess[]>): Promise<unknown> {
  const slices: unknown[] = [];
  const outcome = { accepted: 0, filtered: 0, rejected: 0 };
  const sink: SysmonSink = {
    store: async (_groupId, host, events, counters) => {
      slices.push({ host, ...preparedAsAppended(events, counters) });
      return { sensorId: slices.length, ...outcome };
    },
    storeHandedOver: async (_groupId, host, slice, counters) => {
      slices.push({ host, processes: handedOver.get(slice.ref), counters: Object.fromEntries(counters) });
      return { sensorId: slices.length, ...outcome };
    },
    binariesSeen: async () => undefined,
  };
  const reply = await batch.commit(1, sink);
  return asSent({ reply, slices });
}

describe('Sysmon bulk bodies read on a reader thread', () => {
  const threaded = new BulkReaders(1, MAX_DECODED);
  const inline = new BulkReaders(0, MAX_DECODED);
  after(() => threaded.close());

  it('store what decoding each document on the request thread stored, for every recorded event', async () => {
    let compared = 0;
    for (const name of RECORDINGS) {
      const documents = [...recordingEvents(name).map(toEcs), SECURITY];
      const body = bulkBody(documents);
      const fromThread = await threaded.read(Buffer.from(body), 'gzip', NOW);
      const onThisThread = await inline.read(Buffer.from(body), 'gzip', NOW);
      assert.deepEqual(fromThread, asSent(onThisThread), name);
      assert.deepEqual(fromThread.items.at(-1), { head: { action: 'index', line: documents.length * 2 + 1 }, refused: 'not an action line ({"index":{…}}, {"create":{…}}, …)' });

      const plain = new SysmonBatch(new SysmonDecoder(), NOW);
      const plainSkips = documents.map((document, i) => plain.add(i, structuredClone(document)));
      const settled = new SysmonBatch(new SysmonDecoder(), NOW);
      const settledSkips = fromThread.items.flatMap((item, i) => ('decoded' in item ? [settled.settle(i, item.decoded)] : []));
      assert.deepEqual(asSent(settledSkips), asSent(plainSkips), name);
      assert.deepEqual(await stored(settled), await stored(plain), name);
      compared += documents.length;
    }
    assert.ok(compared > 1_000, `${compared} documents compared`);
  });

  it('refuses a body that is no gzip, or unzips past the limit, by the same names as on the request thread', async () => {
    const small = new BulkReaders(1, 1024);
    try {
      for (const [body, reason] of [[Buffer.from('not gzip'), 'bad_encoding'], [gzipSync(Buffer.alloc(4096, 0x20)), 'batch_too_large']] as const) {
        for (const readers of [small, new BulkReaders(0, 1024)]) {
          await assert.rejects(readers.read(Buffer.from(body), 'gzip', NOW), (error) => error instanceof IngestRejection && error.batchReason === reason);
        }
      }
    } finally {
      await small.close();
    }
  });

  it('hand the writer, when it takes them, the prepared events that settling on the request thread and appending would give it', async () => {
    const { port1, port2 } = new MessageChannel();
    const handedOver = new Map<string, PreparedProcess[]>();
    port2.on('message', ({ ref, processes }: HandedOverBatch) => handedOver.set(ref, processes));
    const handing = new BulkReaders(1, MAX_DECODED, () => port1);
    try {
      const withSecurity = await handing.read(bulkBody([...recordingEvents('schtask_create').map(toEcs), SECURITY]), 'gzip', NOW, true);
      assert.equal(withSecurity.handedOver, undefined, 'a body with Security events is settled whole on the request thread');
      let slices = 0;
      for (const name of RECORDINGS) {
        const documents = recordingEvents(name).filter((event) => event.Channel === 'Microsoft-Windows-Sysmon/Operational').map(toEcs);
        const read = await handing.read(bulkBody(documents), 'gzip', NOW, true);
        assert.ok(read.handedOver !== undefined, name);
        const refs = Object.values(read.handedOver).flat().map((slice) => slice.ref);
        while (refs.some((ref) => !handedOver.has(ref))) await new Promise((resolve) => setImmediate(resolve));

        const plain = new SysmonBatch(new SysmonDecoder(), NOW);
        const plainSkips = documents.map((document, i) => plain.add(runLine(1, i), structuredClone(document)));
        const settled = new SysmonBatch(new SysmonDecoder(), NOW);
        // A run of items alike is settled once and answers for each of them.
        const settledSkips = read.items.flatMap((item) => ('decoded' in item ? Array<unknown>(1 + (item.more ?? 0)).fill(settled.settle(item.head.line, item.decoded, item.more)) : []));
        assert.ok(read.items.length < documents.length / 2, `${name}: ${documents.length} items answered in ${read.items.length} runs`);
        settled.handedOver(read.handedOver);
        assert.deepEqual(asSent(settledSkips), asSent(plainSkips), name);
        const [fromReader, fromPlain] = [await slicesStored(settled, handedOver), await slicesStored(plain, new Map())];
        assert.deepEqual(fromReader, fromPlain, name);
        slices += refs.length;
      }
      assert.ok(slices >= RECORDINGS.length, `${slices} slices compared`);
    } finally {
      port2.close();
      await handing.close();
    }
  });
});
