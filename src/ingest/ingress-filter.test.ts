/** Compiled ingress filters: scope, process matching and event dropping, as tables. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { INGRESS_FILTER_DEFAULTS } from '../modules/ingress-filters/ingress-filters.defaults.js';
import type { IngressFilterSettings } from '../modules/ingress-filters/ingress-filters.schemas.js';
import type { IngressFilterRecord } from '../modules/ingress-filters/ingress-filters.store.js';
import type { EventType } from './event.schemas.js';
import {
  compileIngressFilter,
  compileIngressFilters,
  type EventFilterValue,
  type IngressProcessFacts,
  type IngressScope,
} from './ingress-filter.js';

let nextId = 1;
function record(settings: Partial<IngressFilterSettings> = {}): IngressFilterRecord {
  const at = '2025-01-01T00:00:00.000Z';
  return {
    id: `f${nextId++}`,
    settings: { ...INGRESS_FILTER_DEFAULTS, name: 'test', path_filters: ['**/noisy.exe'], ...settings },
    createdAt: at, modifiedAt: at, createdBy: 1, modifiedBy: 1,
  };
}
const compile = (settings: Partial<IngressFilterSettings> = {}) => compileIngressFilter(record(settings));

const WINDOWS_7_IN_2: IngressScope = { sensorId: 7, groupId: 2, osType: 'windows' };

describe('compiled ingress filter scope', () => {
  /** [settings, scope, appliesTo, measures] */
  const cases: [Partial<IngressFilterSettings>, IngressScope, boolean, boolean][] = [
    [{}, WINDOWS_7_IN_2, true, true],
    [{}, { ...WINDOWS_7_IN_2, osType: 'linux' }, true, true],
    [{ os_mask: 1 }, WINDOWS_7_IN_2, true, true],
    [{ os_mask: 1 }, { ...WINDOWS_7_IN_2, osType: 'osx' }, false, false],
    [{ os_mask: 2 }, { ...WINDOWS_7_IN_2, osType: 'osx' }, true, true],
    [{ os_mask: 6 }, { ...WINDOWS_7_IN_2, osType: 'linux' }, true, true],
    [{ os_mask: 6 }, WINDOWS_7_IN_2, false, false],
    [{ os_mask: 0 }, WINDOWS_7_IN_2, false, false],
    // global ignores the lists; otherwise the sensors listed, or every sensor of the groups listed.
    [{ global: true, group_ids: [9], sensor_ids: [9] }, WINDOWS_7_IN_2, true, true],
    [{ global: false, group_ids: [2] }, WINDOWS_7_IN_2, true, true],
    [{ global: false, group_ids: [3] }, WINDOWS_7_IN_2, false, false],
    [{ global: false, group_ids: [2], sensor_ids: [7] }, WINDOWS_7_IN_2, true, true],
    [{ global: false, group_ids: [2], sensor_ids: [8] }, WINDOWS_7_IN_2, false, false],
    [{ global: false, sensor_ids: [7] }, WINDOWS_7_IN_2, true, true],
    [{ global: false }, WINDOWS_7_IN_2, false, false],
    // Disabled, or passing through on the server: not enforced, but measured while tracking metrics.
    [{ enabled: false }, WINDOWS_7_IN_2, false, true],
    [{ enabled: false, track_metrics: false }, WINDOWS_7_IN_2, false, false],
    [{ filter_on_server: false }, WINDOWS_7_IN_2, false, true],
    [{ track_metrics: false }, WINDOWS_7_IN_2, true, true],
    // Vigil pushes no filters to sensors, so the server keeps enforcing those meant for them.
    [{ filter_on_sensor: true }, WINDOWS_7_IN_2, true, true],
  ];

  it('applies and measures where the settings say', () => {
    for (const [settings, scope, applies, measures] of cases) {
      const filter = compile(settings);
      assert.equal(filter.appliesTo(scope), applies, `appliesTo ${JSON.stringify(settings)} ${JSON.stringify(scope)}`);
      assert.equal(filter.measures(scope), measures, `measures ${JSON.stringify(settings)} ${JSON.stringify(scope)}`);
    }
  });
});

describe('compiled ingress filter process matching', () => {
  const cmd: IngressProcessFacts = {
    path: 'C:\\Windows\\System32\\cmd.exe', cmdline: 'cmd.exe /c backup.bat', md5: '5A18F00AB9330AC7539675F3F326CF11',
  };
  /** [settings, process, matches] */
  const cases: [Partial<IngressFilterSettings>, IngressProcessFacts, boolean][] = [
    [{ path_filters: ['**/cmd.exe'] }, cmd, true],
    [{ path_filters: ['**/powershell.exe', 'c:\\windows\\system32\\cmd.exe'] }, cmd, true],
    [{ path_filters: ['**/powershell.exe'] }, cmd, false],
    [{ path_filters: [], cmdline_filters: ['rx|backup\\.bat$'] }, cmd, true],
    [{ path_filters: [], md5_filters: ['5a18f00ab9330ac7539675f3f326cf11'] }, cmd, true],
    [{ path_filters: [], md5_filters: ['00000000000000000000000000000000'] }, cmd, false],
    // Every kind of criterion the filter has must match.
    [{ path_filters: ['**/cmd.exe'], cmdline_filters: ['rx|backup'] }, cmd, true],
    [{ path_filters: ['**/cmd.exe'], cmdline_filters: ['rx|restore'] }, cmd, false],
    [{ path_filters: ['**/cmd.exe'], md5_filters: ['00000000000000000000000000000000'] }, cmd, false],
    // No process criterion: no process matches.
    [{ path_filters: [], regmod_filters: ['rx|.*'] }, cmd, false],
    [{ path_filters: ['rx|.*'] }, { path: '', cmdline: '', md5: '' }, true],
    [{ path_filters: [], md5_filters: ['rx|.*'] }, { ...cmd, md5: '' }, true],
    [{ path_filters: [], cmdline_filters: ['cmd.exe'] }, { ...cmd, cmdline: '' }, false],
  ];

  it('matches processes by path, command line and MD5', () => {
    for (const [settings, process, expected] of cases) {
      assert.equal(compile(settings).matchesProcess(process), expected, `${JSON.stringify(settings)} ${process.path}`);
    }
  });

  it('carries the descendant level and whether every event goes', () => {
    for (const level of [0, 1, 5, -1]) assert.equal(compile({ descendant_filtering_level: level }).descendantLevel, level);
    assert.equal(compile().descendantLevel, 0);
    assert.equal(compile().filterAllEvents, true);
    assert.equal(compile({ filter_all_events: false }).filterAllEvents, false);
  });
});

describe('compiled ingress filter event dropping', () => {
  const perEvent: Partial<IngressFilterSettings> = {
    filter_all_events: false,
    filemod_filters: ['**/*.log'],
    non_binary_filemod_filters: ['c:\\temp\\**'],
    regmod_filters: ['rxi|\\\\software\\\\acme\\\\'],
    modload_filters: ['**/acme*.dll'],
    netconn_filters: ['telemetry.acme.com', 'rx|^10\\.'],
    crossproc_filters: ['**/lsass.exe'],
  };
  /** [event type, value, dropped] */
  const cases: [EventType, EventFilterValue, boolean][] = [
    ['filemod', { path: 'c:\\app\\run.log', file_type: 1 }, true],
    ['filemod', { path: 'c:\\app\\run.txt' }, false],
    ['filemod', { path: 'c:\\temp\\notes.txt', file_type: 0 }, true],
    ['filemod', { path: 'c:\\temp\\notes.txt' }, true],
    ['filemod', { path: 'c:\\temp\\setup.exe', file_type: 1 }, false],
    ['filemod', { path: 'c:\\temp\\setup.elf', file_type: 2 }, false],
    ['filemod', { path: 'c:\\temp\\setup.app', file_type: 3 }, false],
    ['regmod', { path: '\\REGISTRY\\MACHINE\\SOFTWARE\\Acme\\Settings' }, true],
    ['regmod', { path: '\\registry\\machine\\software\\other' }, false],
    ['modload', { path: 'C:\\Program Files\\Acme\\AcmeHook.dll' }, true],
    ['modload', { path: 'c:\\windows\\system32\\kernel32.dll' }, false],
    ['netconn', { domain: 'Telemetry.Acme.com', remote_ip: '93.184.216.34' }, true],
    ['netconn', { domain: 'example.com', remote_ip: '10.1.2.3' }, true],
    ['netconn', { remote_ip: '10.1.2.3' }, true],
    ['netconn', { domain: 'example.com', remote_ip: '93.184.216.34' }, false],
    ['crossproc', { target_path: 'c:\\windows\\system32\\lsass.exe' }, true],
    ['crossproc', { target_path: 'c:\\windows\\system32\\csrss.exe' }, false],
    ['process_start', { path: 'c:\\app\\run.log' }, false],
    ['childproc', { path: 'c:\\windows\\system32\\lsass.exe' }, false],
    ['process_end', {}, false],
  ];

  it('drops the events the per-type filters match', () => {
    const filter = compile(perEvent);
    for (const [type, value, dropped] of cases) {
      assert.equal(filter.dropsEvent(type, value), dropped, `${type} ${JSON.stringify(value)}`);
    }
  });

  it('drops every event with filter_all_events, and none for a type without filters', () => {
    const all = compile();
    for (const [type, value] of cases) assert.equal(all.dropsEvent(type, value), true, type);
    const none = compile({ filter_all_events: false });
    for (const [type, value] of cases) assert.equal(none.dropsEvent(type, value), false, type);
  });

  it('takes the event itself as the value', () => {
    const filter = compile(perEvent);
    const event = {
      type: 'netconn' as const, ts: 1, pid: 2, process_start: 1, direction: 'outbound' as const, proto: 6,
      remote_ip: '10.9.9.9', remote_port: 443,
    };
    assert.equal(filter.dropsEvent(event.type, event), true);
  });
});

describe('compileIngressFilters', () => {
  it('keeps the filters the pipeline needs, highest priority first, ties oldest first', () => {
    const low = record({ priority: -5 });
    const first = record();
    const high = record({ priority: 10 });
    const second = record();
    const pausedTracked = record({ enabled: false, priority: 3 });
    const pausedUntracked = record({ enabled: false, track_metrics: false });
    const passThrough = record({ filter_on_server: false, track_metrics: false });
    const compiled = compileIngressFilters([low, first, high, second, pausedTracked, pausedUntracked, passThrough]);
    assert.deepEqual(compiled.map((f) => f.id), [high.id, pausedTracked.id, first.id, second.id, low.id]);
  });
});
