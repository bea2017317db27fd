/**
 * The stored form of events gives back exactly what went in: every type, optional fields present
 * or absent (also in the middle of the field list), pid and process_start restored from the process.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { processEvents } from '../../test/support/sensors.js';
import type { SensorEvent } from './event.schemas.js';
import { decodeChunk, encodeChunk } from './event-codec.js';

const PID = 4242;
const START = 1_763_000_000_000;

const extra: SensorEvent[] = [
  {
    type: 'netconn', ts: START + 20, pid: PID, process_start: START, direction: 'inbound', proto: 17, remote_ip: 'fe80::1',
    remote_port: 53, proxy_ip: '10.0.0.1', proxy_port: 3128, ja3: 'a'.repeat(32), ja3s: 'b'.repeat(32),
  },
  {
    type: 'processblock', ts: START + 21, pid: PID, process_start: START, blocked_md5: 'c'.repeat(32), blocked_path: 'c:\\x.exe',
    block_type: 1, block_event: 2, block_result: 0, block_error: 0,
  },
  {
    type: 'filemod', ts: START + 22, pid: PID, process_start: START, action: 'last_write', path: 'c:\\a b\\c.txt', tamper: true,
  },
  {
    type: 'crossproc', ts: START + 23, pid: PID, process_start: START, action: 'remote_thread', target_pid: 8, target_start: START - 1,
    target_path: 'c:\\t.exe', access: 0, is_target: false,
  },
];

describe('event codec', () => {
  it('round-trips every event type through a chunk', () => {
    const events = [...processEvents(PID, START, { pid: 600, start: START - 5000, path: 'C:\\Windows\\Explorer.EXE' }), ...extra];
    const stored = encodeChunk(events);
    assert.deepEqual(decodeChunk(stored, PID, START), events);
    assert.deepEqual(decodeChunk(Buffer.from(stored), PID, START), events, 'also from a BLOB');
  });

  it('leaves field names, pid and process_start out of the stored form', () => {
    const stored = encodeChunk([extra[2]!]);
    assert.doesNotMatch(stored, /path|process_start|4242/);
    assert.ok(stored.length < JSON.stringify([extra[2]]).length / 2);
  });
});
