/** Raw events' LEEF, written directly, is byte for byte what the generic encoder makes of the record layout. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import type { TSchema } from '@sinclair/typebox';
import { processId } from '../../domain/process-id.js';
import { EVENT_SCHEMAS, type SensorEvent } from '../../ingest/event.schemas.js';
import { encodeLeef } from './forwarder-format.js';
import { rawEventRecord } from './forwarder-raw-record.js';
import { RawEventRecord, rawEventLeef } from './forwarder-raw-text.js';

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

it('writes every raw event as the record layout does, in JSON and in LEEF', () => {
  fc.assert(fc.property(events, processes, text, (event, process, serverName) => {
    const origin = { serverName, version: '7.8.0' };
    const guid = processId(process);
    const record = rawEventRecord(event, process, guid, origin);
    const chunk = { process, guid, origin };
    assert.equal(new RawEventRecord(event, chunk).text('json'), JSON.stringify(record));
    assert.equal(rawEventLeef(event, chunk), encodeLeef(record));
  }), { numRuns: 3000 });
});
