/** Raw events' JSON and LEEF, written directly, are byte for byte what the generic encoders make of the record layout. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from '@sinclair/typebox';
import { processId } from '../../domain/process-id.js';
import { decodeChunk, encodeChunk } from '../../ingest/event-codec.js';
import { EVENT_SCHEMAS, type SensorEvent } from '../../ingest/event.schemas.js';
import { encodeLeef } from './forwarder-format.js';
import { rawEventRecord } from './forwarder-raw-record.js';
import { ChunkRows } from './forwarder-raw-json.js';
import { RawChunk } from './forwarder-raw-text.js';
import type { ProcessFacts } from './forwarder-records.js';

/** Text that needs escaping in JSON or LEEF now and then, lone surrogates among it. */
const text = fc.oneof(
  fc.string(), fc.string({ unit: 'binary' }), fc.stringMatching(/^[0-9a-f]{32}$/),
  fc.constantFrom('c:\\a=b\tc', 'say "hi"\n', '\ud800x', 'x\u2028y', '\u0000'),
);

/** Any value a field's schema allows (and some it does not: decoding does not check them). */
function valueOf(schema: TSchema): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.anyOf)) return fc.oneof(...(schema.anyOf as TSchema[]).map(valueOf));
  if (schema.type === 'integer') return fc.oneof(fc.integer({ min: 0, max: 0xffffffff }), fc.integer());
  if (schema.type === 'boolean') return fc.boolean();
  return text;
}

const events: fc.Arbitrary<SensorEvent> = fc.oneof(...Object.values(EVENT_SCHEMAS).map((schema) => {
  const required = new Set<string>(schema.required ?? []);
  const fields = Object.fromEntries(Object.entries(schema.properties as Record<string, TSchema>).map(([name, field]) => [name, valueOf(field)]));
  return fc.record(fields, { requiredKeys: [...required] }) as fc.Arbitrary<SensorEvent>;
}));

const processes = fc.record({
  sensorId: fc.integer({ min: 1, max: 100_000 }), pid: fc.integer({ min: 0, max: 0xffffffff }), startMs: fc.integer({ min: 0, max: 2 ** 42 }),
  hostname: text, path: text, md5: text, segmentId: fc.integer({ min: 0, max: 1000 }),
});

/** Each of a chunk's records against JSON.stringify and encodeLeef of rawEventRecord of its decoded event. */
function assertChunkText(stored: string, process: ProcessFacts, serverName: string): void {
  const origin = { serverName, version: '7.8.0' };
  const guid = processId(process);
  const chunk = new RawChunk(stored, { process, guid, origin });
  const decoded = decodeChunk(stored, process.pid, process.startMs);
  const records = chunk.addRecords(undefined, []);
  assert.equal(records.length, decoded.length);
  decoded.forEach((event, i) => {
    const record = rawEventRecord(event, process, guid, origin);
    assert.equal(records[i]!.text('json'), JSON.stringify(record));
    assert.equal(records[i]!.text('leef'), encodeLeef(record));
    assert.equal(records[i]!.timestamp, record.timestamp);
    assert.equal(records[i]!.timestampText, String(record.timestamp));
    assert.equal(records[i]!.type, event.type);
  });
}

it('writes every raw event as the record layout does, in JSON and in LEEF', () => {
  fc.assert(fc.property(fc.array(events, { minLength: 1, maxLength: 5 }), processes, text, (chunkEvents, process, serverName) => {
    const stored = encodeChunk(chunkEvents);
    assert.equal(ChunkRows.locate(stored)?.count, chunkEvents.length, 'located without decoding');
    assertChunkText(stored, process, serverName);
  }), { numRuns: 3000 });
});

it('writes chunks larger than the locating scratch holds, and the ones after them', () => {
  // A busy process's chunk has hundreds of events: its offsets outgrow the scratch, which must then serve small chunks as well.
  fc.assert(fc.property(fc.array(events, { minLength: 200, maxLength: 400 }), fc.array(events, { minLength: 1, maxLength: 3 }), processes, (large, small, process) => {
    for (const chunkEvents of [large, small]) {
      const stored = encodeChunk(chunkEvents);
      assert.equal(ChunkRows.locate(stored)?.count, chunkEvents.length);
      assertChunkText(stored, process, 'vigil');
    }
  }), { numRuns: 15 });
});

it('writes the same records from a chunk stored in another JSON layout', () => {
  fc.assert(fc.property(fc.array(events, { minLength: 1, maxLength: 3 }), processes, text, (chunkEvents, process, serverName) => {
    // Spaced out, the text no longer has each value as JSON.stringify writes it: records then go through the decoded events.
    const spaced = JSON.stringify(JSON.parse(encodeChunk(chunkEvents)), null, 1);
    assert.equal(ChunkRows.locate(spaced), undefined);
    assertChunkText(spaced, process, serverName);
  }), { numRuns: 300 });
});
