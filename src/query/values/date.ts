/**
 * Date and time values (reference §4), as half-open [from, to) epoch-millisecond intervals.
 * Written forms: `YYYY-MM-DD`, `YYYY-MM-DDThh:mm[:ss[.ffffff]]` with an optional `Z` or
 * `±hh:mm` (no zone: UTC, the time as stored), a space or the doc's typo `:` instead of `T`,
 * `now`, and relative `-<n><unit>` with unit s, m, h, d or w (the doc names h/m/s; `d` and `w`
 * are accepted as users expect, decision 9 of §8). Relative values count back from an injected
 * `now`, never the clock, so a query means the same in a test and in production. Day numbers
 * past a month's end roll over, as in the doc's own `2014-09-31`.
 */
import type { Invalid } from './invalid.js';

export interface TimeRange {
  /** Inclusive start, epoch ms; null: unbounded. */
  readonly from: number | null;
  /** Exclusive end, epoch ms; null: unbounded. */
  readonly to: number | null;
}


const UNIT_MS = new Map([
  ['s', 1_000],
  ['m', 60_000],
  ['h', 3_600_000],
  ['d', 86_400_000],
  ['w', 604_800_000],
]);

const DAY_MS = 86_400_000;
const RELATIVE = /^-(\d{1,9})([smhdw])$/iu;
const ABSOLUTE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T :](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/iu;
const INVALID: Invalid = {
  invalid: 'Expected a date such as 2024-05-01, 2024-05-01T13:45:00, -24h or a range [2024-05-01 TO *]',
};

/**
 * The span one written value stands for: a day, a second (minute, millisecond) at the precision
 * written, or the instant `now` / `-24h`.
 */
export function parseTimeBound(text: string, now: number): { from: number; to: number } | Invalid {
  if (text.toLowerCase() === 'now') return { from: now, to: now + 1 };
  const relative = RELATIVE.exec(text);
  if (relative) {
    const instant = now - Number(relative[1]) * UNIT_MS.get(relative[2]!.toLowerCase())!;
    return { from: instant, to: instant + 1 };
  }
  const match = ABSOLUTE.exec(text);
  if (!match) return INVALID;
  const [, year, month, day, hour, minute, second, fraction, zone] = match;
  const numbers = [month, day, hour ?? '0', minute ?? '0', second ?? '0'].map(Number) as [number, number, number, number, number];
  const [mo, d, h, mi, s] = numbers;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return INVALID;
  const millis = fraction ? Number(fraction.slice(0, 3).padEnd(3, '0')) : 0;
  const from = Date.UTC(Number(year), mo - 1, d, h, mi, s, millis) - zoneOffsetMs(zone);
  const precision = hour === undefined ? DAY_MS : fraction ? 1 : second !== undefined ? 1_000 : 60_000;
  return { from, to: from + precision };
}

/**
 * A single value (not a range): a day is that day; a date with a time is the 24 hours from that
 * moment, as the 5.1 user guide describes it; a relative value runs from then to the present and
 * on, so endpoint clocks running slightly ahead do not hide fresh activity.
 */
export function parseTimeValue(text: string, now: number): TimeRange | Invalid {
  const bound = parseTimeBound(text, now);
  if ('invalid' in bound) return bound;
  if (RELATIVE.test(text)) return { from: bound.from, to: null };
  if (bound.to - bound.from < DAY_MS) return { from: bound.from, to: bound.from + DAY_MS };
  return bound;
}

/** `[lower TO upper]`, both inclusive at the precision written; null bounds are `*`. */
export function parseTimeRange(lower: string | null, upper: string | null, now: number): TimeRange | Invalid {
  const low = lower === null ? null : parseTimeBound(lower, now);
  const high = upper === null ? null : parseTimeBound(upper, now);
  if (low && 'invalid' in low) return low;
  if (high && 'invalid' in high) return high;
  return { from: low ? low.from : null, to: high ? high.to : null };
}

function zoneOffsetMs(zone: string | undefined): number {
  if (!zone || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.replace(':', '');
  const minutes = Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5));
  return (digits.startsWith('-') ? -1 : 1) * minutes * 60_000;
}
