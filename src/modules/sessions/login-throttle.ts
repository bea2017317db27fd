/**
 * Slows password guessing. Every login attempt for a username, and every one from an address,
 * counts as a failure the moment it starts (so that attempts sent all at once cannot outrun the
 * count); a success takes its attempt back. Past FREE_FAILURES, each failure makes the next
 * attempt for that username or address wait twice as long as the last, up to the configured cap.
 *
 * The counts live in this server's memory, bounded (least recently used keys are dropped first):
 * each server behind a shared database slows guessing on its own.
 */
import { LRUCache } from 'lru-cache';

/** Typing mistakes cost nothing at first. */
const FREE_FAILURES = 3;
const FIRST_WAIT_MS = 1_000;
const TRACKED_KEYS = 50_000;

interface Failures {
  count: number;
  /** When the last counted attempt began. */
  lastMs: number;
  blockedUntilMs: number;
}

export class LoginThrottle {
  private readonly failures = new LRUCache<string, Failures>({ max: TRACKED_KEYS });
  /**
   * Quiet for this long, a key starts afresh: at least FREE_FAILURES + 1 waits at the cap, so that
   * waiting for the reset never gives more guesses than waiting out the cap.
   */
  private readonly forgetAfterMs: number;

  constructor(private readonly maxWaitMs: number, private readonly now: () => number = Date.now) {
    this.forgetAfterMs = Math.max(3_600_000, (FREE_FAILURES + 1) * maxWaitMs);
  }

  /**
   * Starts an attempt: the milliseconds to wait first when the username or the address is being
   * slowed (the attempt is then not counted), 0 when it may go ahead (it is counted as a failure
   * until `succeeded`).
   */
  begin(username: string, address: string): number {
    const now = this.now();
    const keys = [userKey(username), addressKey(address)];
    const waitMs = Math.max(...keys.map((key) => (this.current(key, now)?.blockedUntilMs ?? 0) - now), 0);
    if (waitMs > 0) return waitMs;
    for (const key of keys) {
      const count = (this.current(key, now)?.count ?? 0) + 1;
      this.failures.set(key, { count, lastMs: now, blockedUntilMs: now + this.waitAfter(count) });
    }
    return 0;
  }

  /** The attempt begun for this username from this address had the right password. */
  succeeded(username: string, address: string): void {
    this.failures.delete(userKey(username));
    // The address keeps its other failures: one good account must not wipe out a spray across many.
    const key = addressKey(address);
    const entry = this.failures.get(key);
    if (entry && entry.count > 1) this.failures.set(key, { ...entry, count: entry.count - 1, blockedUntilMs: entry.lastMs + this.waitAfter(entry.count - 1) });
    else this.failures.delete(key);
  }

  private current(key: string, now: number): Failures | undefined {
    const entry = this.failures.get(key);
    if (entry && now - entry.lastMs > this.forgetAfterMs) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }

  private waitAfter(failures: number): number {
    if (failures <= FREE_FAILURES) return 0;
    return Math.min(this.maxWaitMs, FIRST_WAIT_MS * 2 ** Math.min(failures - FREE_FAILURES - 1, 40));
  }
}

/** Names differing only in case are one target. */
const userKey = (username: string) => `user:${username.toLowerCase()}`;

/** An IPv4 client seen through an IPv6 socket is the same address. */
const addressKey = (address: string) => `address:${address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '')}`;
