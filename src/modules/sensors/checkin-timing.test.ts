/** Which check-ins are answered before they are written: a steady heartbeat, nothing that changes the sensor's state. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { isPlainHeartbeat } from './checkin-timing.js';
import type { SensorRecord } from './sensors.store.js';

const NOW = 1_000_000;
const CHECKED_IN: SensorRecord = {
  id: 1, groupId: 1, secretHash: '', osType: 'linux', hostType: 'server', computerName: 'web', computerDnsName: 'web', computerSid: '',
  osEnvironmentDisplayString: '', buildVersionString: '', buildId: 0, bootId: '1', networkAdapters: '', physicalMemorySize: 0,
  systemvolumeTotalSize: 0, systemvolumeFreeSize: 0, uptime: 0, sensorUptime: 0, clockDeltaMs: 0, healthStatus: 100, healthMessage: '',
  isIsolating: false, networkIsolationEnabled: false, restartQueued: false, uninstall: false, notes: null, registrationMs: 0,
  lastCheckinMs: NOW - 30_000, nextCheckinMs: NOW, lastSequence: 0, eventLogFlushMs: null, uninstalledMs: null, agent: 'vigil',
};

it('tells a steady heartbeat from a check-in that changes what the sensor is', () => {
  const heartbeat = (before: Partial<SensorRecord>, body: Record<string, unknown> = {}) =>
    isPlainHeartbeat({ ...CHECKED_IN, ...before }, { sensor_time: NOW, ...body }, NOW, 30);
  assert.equal(heartbeat({}), true, 'online, nothing new');
  assert.equal(heartbeat({}, { is_isolating: false, uptime: 5, computer_name: 'renamed' }), true, 'host facts only');
  assert.equal(heartbeat({ isIsolating: true }, { is_isolating: true }), true, 'isolation as recorded');
  assert.equal(heartbeat({ lastCheckinMs: null, nextCheckinMs: null }), false, 'the first check-in');
  assert.equal(heartbeat({}, { completed: [{ id: 3 }] }), false, 'acknowledges an instruction');
  assert.equal(heartbeat({}, { is_isolating: true }), false, 'confirms isolation');
  assert.equal(heartbeat({ isIsolating: true }, { is_isolating: false }), false, 'ends isolation');
  assert.equal(heartbeat({ lastCheckinMs: NOW - 91_000, nextCheckinMs: NOW - 61_000 }), false, 'ends an offline spell');
  assert.equal(heartbeat({ uninstalledMs: NOW - 1000 }), false, 'uninstalled');
});
