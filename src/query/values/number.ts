/**
 * Counts and integers (reference §4), and the 64-bit ids of §5.12. Decimal only; a range bound
 * may be `*` (null). Ranges are inclusive at both ends (decision 8 of §8: the doc calls ranges
 * inclusive and its "< 10" for `[* TO 10]` is the odd one out).
 */
import type { Invalid } from './invalid.js';

const DECIMAL = /^[+-]?\d+$/u;

export function parseInteger(text: string): number | Invalid {
  const value = DECIMAL.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(value) ? value : { invalid: 'Expected a whole number' };
}

const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 64n - 1n;

/** Signed (process_id, parent_id) or unsigned (sensor_id) 64-bit; both fit this one check. */
export function parseLong(text: string): bigint | Invalid {
  if (!DECIMAL.test(text)) return { invalid: 'Expected a whole number' };
  const value = BigInt(text);
  return value >= LONG_MIN && value <= LONG_MAX ? value : { invalid: 'Expected a 64-bit whole number' };
}
