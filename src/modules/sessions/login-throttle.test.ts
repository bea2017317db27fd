/** The backoff of failed logins, on a clock the test moves. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoginThrottle } from './login-throttle.js';

function throttle(maxWaitMs = 60_000) {
  const clock = { now: 1_000_000 };
  return { clock, throttle: new LoginThrottle(maxWaitMs, () => clock.now) };
}

describe('login backoff', () => {
  it('lets three failures pass, then doubles the wait after each, up to the cap', () => {
    const { clock, throttle: t } = throttle(10_000);
    for (let i = 0; i < 4; i++) assert.equal(t.begin('alice', '10.0.0.1'), 0, `attempt ${i + 1}`);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      const wait = t.begin('alice', '10.0.0.1');
      waits.push(wait);
      clock.now += wait;
      assert.equal(t.begin('alice', '10.0.0.1'), 0, 'after the wait, one attempt goes ahead');
    }
    assert.deepEqual(waits, [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });

  it('slows one username tried from many addresses', () => {
    const { throttle: t } = throttle();
    for (let i = 0; i < 4; i++) assert.equal(t.begin('alice', `10.0.0.${i}`), 0);
    assert.equal(t.begin('alice', '10.0.0.99'), 1_000);
    assert.equal(t.begin('ALICE', '10.0.0.98'), 1_000, 'the same name in other letter case');
    assert.equal(t.begin('bob', '10.0.0.97'), 0, 'other users are not slowed');
  });

  it('slows one address trying many usernames, however it is written', () => {
    const { throttle: t } = throttle();
    for (let i = 0; i < 4; i++) assert.equal(t.begin(`user${i}`, '192.0.2.7'), 0);
    assert.equal(t.begin('user99', '192.0.2.7'), 1_000);
    assert.equal(t.begin('user98', '::ffff:192.0.2.7'), 1_000);
    assert.equal(t.begin('user97', '192.0.2.8'), 0, 'other addresses are not slowed');
  });

  it('forgets a username\'s failures at a success, but not the address\'s others', () => {
    const { throttle: t } = throttle();
    t.begin('sprayed1', '192.0.2.7');
    t.begin('sprayed2', '192.0.2.7');
    t.begin('alice', '192.0.2.7');
    assert.equal(t.begin('alice', '192.0.2.7'), 0, 'the 4th attempt from the address');
    t.succeeded('alice', '192.0.2.7');
    for (let i = 0; i < 4; i++) assert.equal(t.begin('alice', '198.51.100.1'), 0, `alice afresh, attempt ${i + 1}`);
    assert.equal(t.begin('someone', '192.0.2.7'), 0, 'the success took back its own attempt only: this is the address\'s 4th');
    assert.equal(t.begin('someone-else', '192.0.2.7'), 1_000);
  });

  it('counts attempts as they start, so that attempts sent together cannot outrun the count', () => {
    const { throttle: t } = throttle();
    const waits = Array.from({ length: 10 }, () => t.begin('alice', '10.0.0.1'));
    assert.equal(waits.filter((w) => w === 0).length, 4);
  });

  it('forgets failures after a long quiet', () => {
    const { clock, throttle: t } = throttle(60_000);
    for (let i = 0; i < 8; i++) t.begin('alice', '10.0.0.1');
    clock.now += 3_599_000;
    assert.ok(t.begin('alice', '10.0.0.1') === 0, 'the wait has passed');
    assert.ok(t.begin('alice', '10.0.0.1') > 0, 'yet the count was kept');
    clock.now += 3_600_001;
    for (let i = 0; i < 4; i++) assert.equal(t.begin('alice', '10.0.0.1'), 0, `fresh attempt ${i + 1}`);
  });
});
