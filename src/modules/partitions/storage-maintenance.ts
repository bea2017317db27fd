/**
 * Rollover and retention, checked on a schedule that runs once across servers
 * (docs/adr/0009-partitions.md, docs/adr/0022-jobs-across-servers.md): the hot partition
 * rolls over by age or size; partitions past the retention age are deleted; when the disk fills
 * the server warns first (log and /api/info) and past the limit deletes the oldest partition,
 * whole, one at a time, never the hot one. Deletions are removed in bounded steps on the event
 * writer, so ingest keeps flowing between them. The clock and the disk are injected for tests.
 */
import { statfs } from 'node:fs/promises';
import type { JobScheduler, ScheduledJob } from '../../jobs/leased-jobs.js';
import type { PartitionRecord, PartitionsStore, PartitionWriter } from './partitions.store.js';

export interface StorageSettings {
  rolloverMs: number;
  /** 0: no size limit. */
  maxPartitionBytes: number;
  /** 0: no age limit. */
  maxAgeMs: number;
  maxDiskShare: number;
  warnDiskShare: number;
}

export interface DiskSpace {
  totalBytes: number;
  availableBytes: number;
}

export interface MaintenanceLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

const QUIET: MaintenanceLog = { info() {}, warn() {}, error() {} };

/** The lease name of the check, shared by every server on the database. */
export const STORAGE_JOB = 'storage-maintenance';

/** The file system holding `dir`, as statfs sees it. */
export async function diskSpaceOf(dir: string): Promise<DiskSpace> {
  const fs = await statfs(dir);
  return { totalBytes: fs.blocks * fs.bsize, availableBytes: fs.bavail * fs.bsize };
}

export class StorageMaintenance {
  private warning: string | null = null;
  /** The work queued so far, one job after another. */
  private chain: Promise<void> = Promise.resolve();
  private checkQueued = false;
  private schedule: ScheduledJob | undefined;
  private log: MaintenanceLog = QUIET;

  constructor(
    private readonly store: PartitionsStore,
    private readonly writer: PartitionWriter,
    private readonly settings: StorageSettings,
    private readonly disk: () => Promise<DiskSpace>,
    private readonly now: () => number = Date.now,
  ) {}

  /** What /api/info reports: why storage needs attention, or null. */
  storageWarning(): string | null {
    return this.warning;
  }

  /** Checks once every `intervalMs` across the servers that `jobs` schedules for, logging to `log`. */
  start(intervalMs: number, log: MaintenanceLog, jobs: JobScheduler): void {
    this.log = log;
    this.schedule = jobs.every(STORAGE_JOB, intervalMs, () => this.check());
  }

  /** Stops the schedule and waits for the work queued. */
  async stop(): Promise<void> {
    this.schedule?.cancel();
    let last;
    while (last !== this.chain) await (last = this.chain);
  }

  /** One check (joining one queued already); never rejects, failures are logged. */
  check(): Promise<void> {
    if (this.checkQueued) return this.chain;
    this.checkQueued = true;
    return this.enqueue(() => {
      this.checkQueued = false;
      return this.tick();
    });
  }

  /** Removes the rows of partitions being deleted, soon (after the work queued). */
  purgeSoon(): Promise<void> {
    return this.enqueue(() => this.purge());
  }

  private enqueue(job: () => Promise<void>): Promise<void> {
    this.chain = this.chain.then(job).catch((error: unknown) => this.log.error({ err: error }, 'storage maintenance failed'));
    return this.chain;
  }

  private async tick(): Promise<void> {
    await this.purge();
    const partitions = await this.store.list();
    const hot = partitions.find((p) => p.state === 'hot')!;
    const nowMs = this.now();
    const { maxPartitionBytes, rolloverMs, maxAgeMs } = this.settings;
    if (nowMs - hot.startMs >= rolloverMs || (maxPartitionBytes > 0 && hot.eventBytes >= maxPartitionBytes)) {
      await this.writer.partition({ op: 'rollover', nowMs });
      this.log.info({ partition: hot.name, sizeInBytes: hot.eventBytes }, 'rolled the hot event partition over');
    }
    const older = partitions.filter((p) => p.state !== 'hot');
    const expired = maxAgeMs > 0 ? older.filter((p) => p.endMs !== null && nowMs - p.endMs > maxAgeMs) : [];
    for (const partition of expired) await this.drop(partition, 'older than the retention age');
    if (expired.length > 0) return;
    const share = await this.diskShare();
    this.warn(share);
    if (share < this.settings.maxDiskShare) return;
    const oldest = older[0];
    if (oldest) await this.drop(oldest, `the disk is ${percent(share)} full`);
    else this.log.error({ diskShare: share }, 'the disk is full and only the hot partition is left to delete; it is kept');
  }

  /** Share of the disk in use, counting the database's free pages as free (SQLite reuses them). */
  private async diskShare(): Promise<number> {
    const [disk, usage] = await Promise.all([this.disk(), this.store.usage()]);
    if (disk.totalBytes <= 0) return 0;
    return Math.max(0, disk.totalBytes - disk.availableBytes - usage.freeBytes) / disk.totalBytes;
  }

  private warn(share: number): void {
    const { warnDiskShare, maxDiskShare } = this.settings;
    const warning = share >= warnDiskShare
      ? `The disk holding the event store is ${percent(share)} full; at ${percent(maxDiskShare)} the oldest event partitions are deleted.`
      : null;
    if (warning && !this.warning) this.log.warn({ diskShare: share }, warning);
    this.warning = warning;
  }

  private async drop(partition: PartitionRecord, reason: string): Promise<void> {
    this.log.warn({ partition: partition.name, sizeInBytes: partition.eventBytes }, `deleting event partition: ${reason}`);
    await this.writer.partition({ op: 'delete', name: partition.name });
    await this.purge();
  }

  /** Removes what partitions being deleted still hold, then gives the free pages back when the file allows it. */
  private async purge(): Promise<void> {
    if (!(await this.store.deleting())) return;
    while (((await this.writer.partition({ op: 'purge' })) as { more: boolean }).more);
    while (((await this.writer.partition({ op: 'vacuum' })) as { more: boolean }).more);
  }
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}
