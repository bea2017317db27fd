/** The simulated sensor's ban list, and an endpoint blocking what it bans. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mostStartedChildMd5 } from '../../test/support/simulated-programs.js';
import { BanList } from './ban-list.js';
import { Endpoint } from './endpoint.js';

const START = Date.UTC(2025, 10, 22, 8, 0, 0);
const A = 'a'.repeat(32);
const B = 'b'.repeat(32);
const C = 'c'.repeat(32);

describe('BanList', () => {
  it('replaces its hashes with a full list, and adds and removes with a change list, idempotently', () => {
    const bans = new BanList();
    bans.apply({ version: 3, added: [{ md5: A }, { md5: B.toUpperCase() }], removed: [], full: true });
    assert.deepEqual([bans.version, bans.has(A), bans.has(B)], [3, true, true]);
    const change = { version: 4, added: [{ md5: C }], removed: [A], full: false };
    bans.apply(change);
    bans.apply(change);
    assert.deepEqual([bans.version, bans.has(A), bans.has(B), bans.has(C)], [4, false, true, true]);
    bans.apply({ version: 0, added: [], removed: [], full: true });
    assert.deepEqual([bans.version, bans.has(B), bans.has(C)], [0, false, false]);
  });
});

describe('an endpoint with a ban list', () => {
  const banned = mostStartedChildMd5('ban-list');

  it('never starts a banned program: its would-be parent, a running process, reports a processblock', () => {
    const endpoint = new Endpoint({ seed: 'ban-list', index: 0, startMs: START, processes: 300 });
    endpoint.bans.apply({ version: 1, added: [{ md5: banned }], removed: [], full: true });
    const events = endpoint.take(20_000);

    assert.ok(!events.some((e) => (e.type === 'process_start' || e.type === 'childproc') && e.md5 === banned), 'the banned program never runs');
    const blocks = events.filter((e) => e.type === 'processblock');
    assert.ok(blocks.length > 0, 'blocks are reported');
    const running = new Set<string>();
    for (const event of events) {
      if (event.type === 'process_start') running.add(`${event.pid}@${event.process_start}`);
      if (event.type === 'process_end') running.delete(`${event.pid}@${event.process_start}`);
      if (event.type !== 'processblock') continue;
      assert.equal(event.blocked_md5, banned);
      assert.ok(event.blocked_path.length > 0 && event.blocked_cmdline);
      assert.ok(running.has(`${event.pid}@${event.process_start}`), 'reported by a running process');
    }
  });

  it('starts the program again once its ban is removed', () => {
    const endpoint = new Endpoint({ seed: 'ban-list', index: 0, startMs: START });
    endpoint.bans.apply({ version: 1, added: [{ md5: banned }], removed: [], full: true });
    endpoint.take(10_000);
    endpoint.bans.apply({ version: 2, added: [], removed: [banned], full: false });
    assert.ok(endpoint.take(20_000).some((e) => e.type === 'process_start' && e.md5 === banned));
  });
});
