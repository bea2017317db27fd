import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseProcessId, processId, uniqueId, unknownParentId } from './process-id.js';

describe('process ids', () => {
  it('decode the reference example: sensor 24, pid 5708, started 2019-11-19 12:25:37.19', () => {
    const key = parseProcessId('00000018-0000-164c-01d5-9ed472b33472');
    assert.deepEqual(key, { sensorId: 24, pid: 5708, startMs: Date.parse('2019-11-19T12:25:37.190Z') });
    // Vigil keeps start times in milliseconds, so the 1.8 µs below that are dropped on re-encoding.
    assert.equal(processId(key!), '00000018-0000-164c-01d5-9ed472b33460');
  });

  it('round-trip any sensor, pid and start', () => {
    for (const key of [
      { sensorId: 1, pid: 4, startMs: 0 },
      { sensorId: 0xffffffff, pid: 0xfffffffe, startMs: Date.parse('2030-01-01T00:00:00.001Z') },
      { sensorId: 77, pid: 123456, startMs: 1_700_000_000_123 },
    ]) {
      const id = processId(key);
      assert.equal(id.length, 36);
      assert.deepEqual(parseProcessId(id), key);
    }
    assert.equal(parseProcessId('not-a-process-id'), undefined);
    assert.equal(parseProcessId('00000018-0000-164c-01d5-9ed472b3347'), undefined);
  });

  it('append the segment as 12 hex digits and name unknown parents as 6.x did', () => {
    const id = '00000018-0000-164c-01d5-9ed472b33472';
    assert.equal(uniqueId(id, 1622034003651), '00000018-0000-164c-01d5-9ed472b33472-0179a8c2b6c3');
    assert.equal(uniqueId(id, 1), `${id}-000000000001`);
    assert.equal(unknownParentId(24), '00000018-ffff-ffff-0000-000000000000');
  });
});
