import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import { decode } from 'fast-png';
import { EVENT_SCHEMAS, type SensorEvent } from '../ingest/event.schemas.js';
import { BinaryMetadata } from '../modules/binaries/binary-upload.schemas.js';
import { RegisterBody } from '../modules/sensors/sensor-protocol.schemas.js';
import type { Binary } from './binaries.js';
import type { Os } from './catalog.js';
import { Endpoint } from './endpoint.js';

const START = Date.UTC(2025, 10, 22, 8, 0, 0);

interface Run {
  endpoint: Endpoint;
  events: SensorEvent[];
  binaries: Binary[];
  /** For each event, the md5s of the binaries handed out by the time its batch was taken. */
  knownAt: Set<string>[];
}

function runEndpoint(seed: string, index: number, processes = 150, batch = 1000): Run {
  const endpoint = new Endpoint({ seed, index, startMs: START, processes });
  const run: Run = { endpoint, events: [], binaries: [], knownAt: [] };
  const known = new Set<string>();
  while (!endpoint.exhausted) {
    const events = endpoint.take(batch);
    assert.ok(events.length <= batch, `${events.length} events for a batch of ${batch}`);
    for (const binary of endpoint.takeBinaries()) {
      run.binaries.push(binary);
      known.add(binary.md5);
    }
    const snapshot = new Set(known);
    for (const event of events) {
      run.events.push(event);
      run.knownAt.push(snapshot);
    }
  }
  return run;
}

/** The first endpoint of each OS in the fleet of `seed`. */
function onePerOs(seed: string): Record<Os, Run> {
  const found: Partial<Record<Os, Run>> = {};
  for (let index = 0; Object.keys(found).length < 3; index++) {
    assert.ok(index < 100, 'a fleet of 100 has every OS');
    const os = new Endpoint({ seed, index, startMs: START }).os;
    found[os] ??= runEndpoint(seed, index);
  }
  return found as Record<Os, Run>;
}

const key = (pid: number, start: number) => `${pid}@${start}`;
const fleet = onePerOs('endpoint-test');

describe('Endpoint', () => {
  it('gives the same host, events and binaries for the same seed, and different ones for another', () => {
    const first = runEndpoint('endpoint-test', 0);
    const again = runEndpoint('endpoint-test', 0);
    assert.deepEqual(again.endpoint.facts, first.endpoint.facts);
    assert.deepEqual(again.events, first.events);
    assert.deepEqual(again.binaries.map((b) => [b.md5, b.sha256, b.metadata]), first.binaries.map((b) => [b.md5, b.sha256, b.metadata]));
    assert.ok(again.binaries.every((b, i) => b.content.equals(first.binaries[i]!.content)), 'same content');

    const other = runEndpoint('another-seed', 0);
    assert.notDeepEqual(other.events, first.events);
    assert.notDeepEqual(other.binaries.map((b) => b.md5), first.binaries.map((b) => b.md5));
  });

  it('yields the same stream whatever the batch size', () => {
    assert.deepEqual(runEndpoint('endpoint-test', 1, 80, 7).events, runEndpoint('endpoint-test', 1, 80, 5000).events);
  });

  for (const [os, run] of Object.entries(fleet)) {
    describe(`on ${os} (${run.endpoint.hostname})`, () => {
      it('registers with facts the protocol accepts', () => {
        assert.ok(Value.Check(RegisterBody, { ...run.endpoint.facts, install_code: 'x' }), JSON.stringify([...Value.Errors(RegisterBody, { ...run.endpoint.facts, install_code: 'x' })]));
        assert.equal(run.endpoint.facts.os_type, os);
      });

      it('emits only events that validate against the event schemas, as they travel', () => {
        const types = new Set<string>();
        for (const event of JSON.parse(JSON.stringify(run.events)) as SensorEvent[]) {
          types.add(event.type);
          const schema = EVENT_SCHEMAS[event.type];
          assert.ok(Value.Check(schema, event), `${JSON.stringify(event)}: ${JSON.stringify([...Value.Errors(schema, event)])}`);
        }
        const expected = ['process_start', 'process_end', 'childproc', 'modload', 'filemod', 'netconn', ...(os === 'windows' ? ['regmod', 'crossproc'] : [])];
        for (const type of expected) assert.ok(types.has(type), `${os} emits ${type}`);
        if (os !== 'windows') assert.ok(!types.has('regmod'), 'only Windows has a registry');
      });

      it('starts exactly its process budget and then stops', () => {
        assert.equal(run.events.filter((e) => e.type === 'process_start').length, 150);
        assert.equal(run.endpoint.processesStarted, 150);
        assert.deepEqual(run.endpoint.take(100), []);
      });

      it('references only hashes of binaries it handed out, whose content starts with the OS magic and hashes to them', () => {
        const magic = { windows: Buffer.from('MZ'), linux: Buffer.from([0x7f, 0x45, 0x4c, 0x46]), osx: Buffer.from([0xcf, 0xfa, 0xed, 0xfe]) }[os as Os];
        const sha256Of = new Map<string, string>();
        for (const binary of run.binaries) {
          assert.ok(binary.content.subarray(0, magic.length).equals(magic), binary.path);
          assert.ok(binary.content.length >= 2048, `${binary.path} is a few KB`);
          assert.equal(createHash('md5').update(binary.content).digest('hex'), binary.md5);
          assert.equal(createHash('sha256').update(binary.content).digest('hex'), binary.sha256);
          assert.equal(binary.metadata.size, binary.content.length);
          assert.ok(Value.Check(BinaryMetadata, binary.metadata), JSON.stringify([...Value.Errors(BinaryMetadata, binary.metadata)]));
          sha256Of.set(binary.md5, binary.sha256);
        }
        assert.equal(new Set(run.binaries.map((b) => b.md5)).size, run.binaries.length, 'each binary is handed out once');
        const signed = run.binaries.filter((b) => b.metadata.digsig?.result === 'Signed').length;
        if (os === 'linux') assert.equal(signed, 0, 'Linux binaries carry no signature');
        else assert.ok(signed > 0 && signed < run.binaries.length, `${signed} of ${run.binaries.length} ${os} binaries signed`);
        run.events.forEach((event, i) => {
          const references: [string | undefined, string | undefined][] =
            event.type === 'process_start' ? [[event.md5, event.sha256], [event.parent_md5, undefined]]
              : event.type === 'modload' || event.type === 'childproc' ? [[event.md5, event.sha256]]
                : event.type === 'crossproc' ? [[event.target_md5, event.target_sha256]] : [];
          for (const [md5, sha256] of references) {
            if (md5 === undefined) continue;
            assert.ok(run.knownAt[i]!.has(md5), `${event.type} references ${md5} before its binary was handed out`);
            if (sha256 !== undefined) assert.equal(sha256, sha256Of.get(md5));
          }
        });
      });

      it('describes its binaries as a sensor would: PNG icons on Windows programs, full signature details', () => {
        for (const { path, metadata } of run.binaries) {
          const hasIcon = os === 'windows' && metadata.is_executable_image === true;
          assert.equal(metadata.icon !== undefined, hasIcon, `${path}: icon only on Windows programs`);
          if (metadata.icon !== undefined) assert.equal(decode(Buffer.from(metadata.icon, 'base64')).width, 32);
          const digsig = metadata.digsig!;
          if (digsig.result === 'Signed') {
            assert.ok(digsig.publisher && digsig.issuer && digsig.subject && digsig.sign_time, `${path}: signature details`);
          }
          assert.equal(digsig.result_code !== undefined, os === 'windows', `${path}: WinVerifyTrust codes on Windows only`);
        }
        const icons = new Set(run.binaries.flatMap((b) => (b.metadata.icon ? [b.metadata.icon] : [])));
        if (os === 'windows') assert.ok(icons.size > 1, 'programs have icons of their own');
      });

      it('keeps its process tree consistent: parents start before children, and only started processes act', () => {
        const started = new Map<string, Extract<SensorEvent, { type: 'process_start' }>>();
        const ended = new Set<string>();
        let lastTs = 0;
        for (const event of run.events) {
          assert.ok(event.ts >= lastTs, 'the sensor clock never goes back');
          lastTs = event.ts;
          const self = key(event.pid, event.process_start);
          if (event.type === 'process_start') {
            assert.ok(!started.has(self), `${self} starts once`);
            if (event.parent_pid !== undefined) {
              const parent = started.get(key(event.parent_pid, event.parent_start!));
              assert.ok(parent, `the parent of ${self} started before it`);
              assert.equal(event.parent_path, parent.path);
              assert.equal(event.parent_md5, parent.md5);
            }
            started.set(self, event);
            continue;
          }
          if (event.type === 'childproc' && event.action === 'start') continue;
          assert.ok(started.has(self), `${event.type} from ${self}, which started`);
          assert.ok(!ended.has(self), `${event.type} from ${self} after it ended`);
          assert.ok(event.ts >= event.process_start, `${event.type} of ${self} before its start`);
          if (event.type === 'process_end') ended.add(self);
        }
        for (const event of run.events) {
          if (event.type !== 'childproc' || event.action !== 'start') continue;
          const child = started.get(key(event.child_pid, event.child_start));
          assert.ok(child, `childproc start names ${key(event.child_pid, event.child_start)}, which has a process_start`);
          assert.equal(child.parent_pid, event.pid);
          assert.equal(child.parent_start, event.process_start);
          assert.equal(child.path, event.path);
          assert.equal(child.md5, event.md5);
        }
        assert.ok(ended.size > started.size / 2, 'most processes end');
      });
    });
  }

  it('reports no network connections while isolated', () => {
    const endpoint = new Endpoint({ seed: 'endpoint-test', index: 0, startMs: START });
    endpoint.isolated = true;
    assert.equal(endpoint.take(5000).filter((event) => event.type === 'netconn').length, 0);
    endpoint.isolated = false;
    assert.notEqual(endpoint.take(5000).filter((event) => event.type === 'netconn').length, 0);
  });

  it('keeps event times on the sensor clock: skewed from the wall clock, and not behind it once synced', () => {
    const endpoint = new Endpoint({ seed: 'endpoint-test', index: 2, startMs: START });
    const skew = endpoint.sensorTime(START) - START;
    assert.notEqual(skew, 0);
    assert.ok(Math.abs(skew) <= 2500, `skew ${skew} ms`);
    endpoint.take(1000);
    const later = START + 3_600_000;
    endpoint.syncClock(later);
    const events = endpoint.take(5000);
    // Events generated before the sync (what the last take left over) keep their times.
    const firstSynced = events.findIndex((event) => event.ts >= later + skew);
    assert.ok(firstSynced >= 0 && firstSynced < 1000, `first event on the synced clock at ${firstSynced}`);
    assert.ok(events.slice(firstSynced).every((event) => event.ts >= later + skew), 'all later events are on the synced clock');
  });
});

describe('Endpoint under live response', () => {
  const endpoint = new Endpoint({ seed: 'endpoint-test', index: 0, startMs: START, processes: 400 });
  const events = endpoint.take(3000);

  it('lists its running processes, each with a parent that started before it', () => {
    const processes = endpoint.processes();
    assert.ok(processes.length > 3, `${processes.length} running`);
    const byKey = new Map(processes.map((p) => [key(p.pid, p.start), p]));
    const roots = processes.filter((p) => !p.parent);
    assert.equal(roots.length, 1, 'one system root');
    for (const proc of processes) {
      if (proc.parent) assert.ok(proc.parent.start <= proc.start, `${proc.path} started after its parent`);
      assert.ok(byKey.has(key(proc.pid, proc.start)));
    }
  });

  it('ends a killed process: it leaves the list and its process_end comes with the next events', () => {
    const victim = endpoint.processes().find((p) => p.parent)!;
    assert.equal(endpoint.kill(victim.pid), 'killed');
    assert.ok(!endpoint.processes().some((p) => p.pid === victim.pid));
    const next = endpoint.take(500);
    const ending = next.findIndex((e) => e.type === 'process_end' && e.pid === victim.pid && e.process_start === victim.start);
    assert.ok(ending >= 0, 'its process_end follows');
    assert.ok(!next.slice(ending + 1).some((e) => e.pid === victim.pid && e.process_start === victim.start), 'and nothing of it after');
    assert.equal(endpoint.kill(victim.pid), 'no_such_process');
    assert.equal(endpoint.kill(endpoint.processes().find((p) => !p.parent)!.pid), 'denied', 'the system stays');
  });

  it('holds the binaries its processes used, byte for byte, and lists their directories', () => {
    const proc = endpoint.processes().find((p) => p.parent)!;
    const start = events.find((e) => e.type === 'process_start' && e.pid === proc.pid && e.process_start === proc.start);
    assert.ok(start?.type === 'process_start');
    const content = endpoint.files.read(proc.path)!;
    assert.equal(createHash('md5').update(content).digest('hex'), start.md5, `${proc.path} hashes to the md5 its event reported`);
    const separator = endpoint.os === 'windows' ? '\\' : '/';
    const directory = proc.path.slice(0, proc.path.lastIndexOf(separator) + 1);
    const listing = endpoint.files.list(directory + '*', Date.now())!;
    assert.deepEqual(listing.slice(0, 2).map((entry) => entry.filename), ['.', '..']);
    const entry = listing.find((e) => directory + e.filename === proc.path)!;
    assert.deepEqual([entry.attributes, entry.size], [['ARCHIVE'], content.length]);
    assert.equal(endpoint.files.list(directory + 'no-such-dir' + separator, Date.now()), undefined);
  });
});
