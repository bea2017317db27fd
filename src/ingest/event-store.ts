/**
 * The write side of process and event storage: prepared batches (prepare.ts) become process
 * rows, segments, event chunks and search postings, one transaction per group of batches. The
 * pipeline owns this interface as its sink; the processes module implements it, with a physical
 * design that differs per dialect (processes/event-store.sqlite.ts), as the house plan allows.
 */
import type { MessagePort } from 'node:worker_threads';
import type { SensorIdentity } from '../domain/sensor-identity.js';
import type { PreparedProcess } from './prepare.js';

export interface IngestBatch {
  sensor: SensorIdentity;
  sequence: number;
  /** The batch's kept events per acting process, in the order the sensor sent them. */
  processes: PreparedProcess[];
  /** Events the ingress filters dropped (counted only if the batch is not a duplicate). */
  filtered: number;
  /** Counts from the earlier stages (events rejected by reason) to record with the batch. */
  counters: Map<string, number>;
  /**
   * Set when another thread prepared the batch and handed it to the store's writer itself
   * (EventStore.handOvers): `processes` is then empty and the writer takes the ones under `ref`.
   */
  handedOver?: { ref: string; events: number } | undefined;
}

/** A batch prepared on another thread, as it travels to the writer (docs/adr/0035). */
export interface HandedOverBatch {
  ref: string;
  processes: PreparedProcess[];
}

export interface IngestOutcome {
  /** The sequence was committed before: nothing was stored. */
  duplicate: boolean;
  accepted: number;
  /** Dropped by ingress filters. */
  filtered: number;
}

/** Where segments start and stop (reference core §1.1, §3), and how much the writer remembers. */
export interface SegmentRules {
  maxEventsPerSegment: number;
  /** A segment takes events for this long after it opened (server clock). */
  windowMs: number;
  /** Bounds of the writer's in-memory state; DEFAULT_CACHE_BOUNDS when absent. */
  cacheBounds?: EventStoreCacheBounds | undefined;
}

/**
 * What an event store keeps in memory between commits, each bounded (docs/adr/0030-cache-bounds.md;
 * config ingestProcessCacheEntries, ingestTermCacheEntries).
 */
export interface EventStoreCacheBounds {
  /** Recently active processes' state (row, open segment): about 600 bytes each. */
  processes: number;
  /** Search terms whose dictionary ids are known. */
  terms: number;
}

export const DEFAULT_CACHE_BOUNDS: EventStoreCacheBounds = { processes: 200_000, terms: 500_000 };

export interface EventStore {
  /**
   * Commits the batches, in order, in one durable transaction, and only then resolves. A batch
   * whose sequence is not above its sensor's last committed one is a duplicate and stores nothing.
   * If the transaction fails nothing of any batch is stored, and the promise rejects.
   */
  commit(batches: readonly IngestBatch[]): Promise<IngestOutcome[]>;
  /**
   * For a store whose commits may overlap (their database writes run while the next commit's
   * batches are encoded; they still commit, and resolve, in order): resolves once the store can
   * take the next commit. Absent: the writer waits for each commit before handing over the next.
   */
  readyForNext?(): Promise<void>;
  /**
   * For a store whose writer runs on a thread of its own: another thread may post HandedOverBatch
   * messages on a port() straight to that writer, and batches then name them by ref. A ref never
   * committed must be dropped, or the writer keeps its batch.
   */
  handOvers?: {
    port(): MessagePort;
    drop(refs: readonly string[]): Promise<void>;
  };
  /** Records counters of a batch refused whole (it stores no events). */
  countRejection(sensorId: number, counters: ReadonlyMap<string, number>): Promise<void>;
  /** Finishes what is in flight and releases the store's resources. */
  close(): Promise<void>;
}
