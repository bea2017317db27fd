/**
 * Storage partitions (reference admin §5): list, roll over, mount, unmount, delete, and Vigil's
 * disk forecast (storage-forecast.ts). Global administrators only, as in Carbon Black (cbapi
 * tolerates the 403 other users get when it connects). The changes themselves run on the event
 * writer (PartitionWriter).
 */
import { InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { documentTimeMicros } from '../../domain/wire-time.js';
import type { Partition, StorageForecast } from './partitions.schemas.js';
import type { PartitionChange, PartitionRecord, PartitionsStore, PartitionWriter } from './partitions.store.js';
import { forecastStorage } from './storage-forecast.js';
import type { DiskSpace } from './storage-maintenance.js';

type Success = { result: 'success' };

export class PartitionsService {
  constructor(
    private readonly store: PartitionsStore,
    private readonly writer: PartitionWriter,
    /** Where a partition's events are kept, shown as its `dir` (the embedded store: its chunk file). */
    private readonly location: (partitionId: number) => string,
    /** Called after a deletion began, to remove its rows in the background. */
    private readonly onDeleted: () => void,
    /** The disk the events fill; a total of 0 when this server cannot see it. */
    private readonly disk: () => Promise<DiskSpace>,
    private readonly now: () => number = Date.now,
  ) {}

  async list(actor: Principal): Promise<Record<string, Partition>> {
    requireGlobalAdmin(actor, 'list storage partitions');
    return Object.fromEntries((await this.store.list()).map((p) => [p.name, this.toWire(p)]));
  }

  async forecast(actor: Principal): Promise<StorageForecast> {
    requireGlobalAdmin(actor, 'read the storage forecast');
    const [partitions, disk, usage] = await Promise.all([this.store.list(), this.disk(), this.store.usage()]);
    const { sampleStartMs, ...figures } = forecastStorage(partitions, disk, usage.freeBytes, this.now());
    return { ...figures, sampleStartDate: sampleStartMs === null ? null : documentTimeMicros(sampleStartMs) };
  }

  /** Rolls the hot partition over to a warm one and starts a new hot partition. */
  async create(actor: Principal): Promise<Success> {
    requireGlobalAdmin(actor, 'create storage partitions');
    await this.writer.partition({ op: 'rollover', nowMs: this.now() });
    return { result: 'success' };
  }

  /** Mounting a mounted partition, or unmounting an unmounted one, changes nothing and succeeds. */
  async mount(actor: Principal, name: string, mounted: boolean): Promise<Success> {
    requireGlobalAdmin(actor, `${mounted ? 'mount' : 'unmount'} storage partitions`);
    checked(await this.writer.partition({ op: 'mount', name, mounted }) as PartitionChange, 'unmounted');
    return { result: 'success' };
  }

  async delete(actor: Principal, name: string): Promise<Success> {
    requireGlobalAdmin(actor, 'delete storage partitions');
    checked(await this.writer.partition({ op: 'delete', name }) as PartitionChange, 'deleted');
    this.onDeleted();
    return { result: 'success' };
  }

  private toWire(p: PartitionRecord): Partition {
    return {
      status: p.state,
      name: p.name,
      info: {
        sizeInBytes: p.eventBytes,
        startDate: documentTimeMicros(p.startMs),
        endDate: p.endMs === null ? null : documentTimeMicros(p.endMs),
        partitionId: p.id,
        numDocs: p.segmentCount,
        maxDoc: p.segmentCount,
        deletedDocs: 0,
        segmentCount: 1,
        userMounted: p.userMounted,
        isLegacy: false,
        dir: this.location(p.id),
        schema: 'cbevents_v1',
      },
    };
  }
}

function checked(change: PartitionChange, verb: string): void {
  if (change.outcome === 'not_found') throw new NotFoundError(`No storage partition named ${change.name}`);
  if (change.outcome === 'hot') {
    throw new InvalidRequestError(`${change.name} is the hot partition, which takes new events: it cannot be ${verb} (roll it over first)`);
  }
}
