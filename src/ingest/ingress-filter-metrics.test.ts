/** Ingress filter hit rates over a sliding 15-minute window. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IngressHitRates } from './ingress-filter-metrics.js';

const MINUTE = 60_000;
const T0 = 1_700_000_000_000 - (1_700_000_000_000 % MINUTE);

describe('IngressHitRates', () => {
  it('is hits over processes measured within the last 15 minutes', () => {
    const rates = new IngressHitRates();
    assert.equal(rates.rate('a', T0), 0);
    rates.record(new Map([['a', { processes: 100, hits: 1 }], ['b', { processes: 10, hits: 10 }]]), T0);
    rates.record(new Map([['a', { processes: 100, hits: 3 }]]), T0 + 30_000);
    assert.equal(rates.rate('a', T0 + 30_000), 0.02);
    assert.equal(rates.rate('b', T0 + 30_000), 1);
    rates.record(new Map([['a', { processes: 200, hits: 0 }]]), T0 + 14 * MINUTE);
    assert.equal(rates.rate('a', T0 + 14 * MINUTE), 0.01);
    // The first minute leaves the window; its bucket slot is reused by a later minute.
    assert.equal(rates.rate('a', T0 + 15 * MINUTE), 0);
    rates.record(new Map([['a', { processes: 50, hits: 5 }]]), T0 + 15 * MINUTE);
    assert.equal(rates.rate('a', T0 + 15 * MINUTE), 5 / 250);
    assert.equal(rates.rate('a', T0 + 60 * MINUTE), 0);
  });

  it('forgets a filter', () => {
    const rates = new IngressHitRates();
    rates.record(new Map([['a', { processes: 4, hits: 1 }]]), T0);
    rates.forget('a');
    assert.equal(rates.rate('a', T0), 0);
  });
});
