/**
 * Leases of the scheduled jobs that must run once across every Vigil server on one database
 * (docs/adr/0022-jobs-across-servers.md). A lease names its holder and when it expires; the
 * holder renews it while the job runs, and when the job ends it frees the lease and records when
 * that run began. Another server claims a lease only once it is free or expired and the job's
 * period since its last run began has passed: one run per period, and a dead holder's job is taken
 * over once its lease runs out.
 *
 * Times are the servers' own clocks: they must agree to well within a lease (NTP does).
 */
import type { SqlDatabase } from '../db/database.js';

export interface JobLeasesStore {
  /**
   * Takes the lease of job `name` for `holder` until `nowMs + leaseMs`, if nobody holds it
   * unexpired and the job's last run began at or before `nowMs - everyMs` (or it never ran). Atomic across
   * servers: of several claims at once, one wins. Resolves whether this claim won.
   */
  claim(name: string, holder: string, nowMs: number, leaseMs: number, everyMs: number): Promise<boolean>;
  /** Counts job `name` as run at `nowMs` unless it has a lease row already: its first run is then a period away. */
  schedule(name: string, nowMs: number): Promise<void>;
  /** Extends the holder's lease to `expiresMs`; false when the lease is no longer its own. */
  renew(name: string, holder: string, expiresMs: number): Promise<boolean>;
  /** Frees the holder's lease and records that its run began at `ranMs` (nothing when another holds it now). */
  finish(name: string, holder: string, ranMs: number): Promise<void>;
}

export class SqlJobLeasesStore implements JobLeasesStore {
  constructor(private readonly db: SqlDatabase) {}

  async claim(name: string, holder: string, nowMs: number, leaseMs: number, everyMs: number): Promise<boolean> {
    // One statement, so that both databases settle simultaneous claims on the row's lock.
    const won = await this.db.get<{ holder: string }>(
      `INSERT INTO job_leases (name, holder, expires_ms, ran_ms) VALUES (?, ?, ?, NULL)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_ms = excluded.expires_ms
       WHERE job_leases.expires_ms <= ? AND (job_leases.ran_ms IS NULL OR job_leases.ran_ms <= ?)
       RETURNING holder`,
      [name, holder, nowMs + leaseMs, nowMs, nowMs - everyMs],
    );
    return won?.holder === holder;
  }

  async schedule(name: string, nowMs: number): Promise<void> {
    await this.db.run("INSERT INTO job_leases (name, holder, expires_ms, ran_ms) VALUES (?, '', 0, ?) ON CONFLICT (name) DO NOTHING", [name, nowMs]);
  }

  async renew(name: string, holder: string, expiresMs: number): Promise<boolean> {
    const { changes } = await this.db.run('UPDATE job_leases SET expires_ms = ? WHERE name = ? AND holder = ?', [expiresMs, name, holder]);
    return changes > 0;
  }

  async finish(name: string, holder: string, ranMs: number): Promise<void> {
    await this.db.run('UPDATE job_leases SET expires_ms = 0, ran_ms = ? WHERE name = ? AND holder = ?', [ranMs, name, holder]);
  }
}
