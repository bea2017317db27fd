/**
 * On a bulk reader thread, when the event store's writer takes batches from it (ADR 0035): each
 * host's events of a read body go the rest of the pipeline's stateless way here (sorted, cut in
 * slices, validated, normalized, prepared) and are posted straight to the writer, so that the
 * request thread receives only what it settles and answers with. That is the pipeline's own work
 * for a slice (IngestPipeline.append) as long as no ingress filter is in force, which is the only
 * case the request thread asks for it. A body with Security events is left whole: their decoding
 * needs the request thread's memory, and they join their host's Sysmon events there.
 */
import { threadId, type MessagePort } from 'node:worker_threads';
import type { HandedOverBatch } from '../event-store.js';
import { MAX_EVENTS_PER_BATCH, type SensorEvent } from '../event.schemas.js';
import { FilterGate } from '../ingress-gate.js';
import { normalizeEvent } from '../normalize.js';
import { EventPreparer } from '../prepare.js';
import { counter } from '../rejection.js';
import { validateEvents } from '../validate.js';
import { batchHostKey, runLine, type ReadBulk, type ReadItem } from './bulk-read.js';
import { shortName, type Unsettled } from './sysmon-decoder.js';

/** One slice of a host's events, handed to the writer under `ref`. */
export interface HandedOverSlice {
  ref: string;
  /** Events kept by validation, which the writer will store. */
  events: number;
  /** Events validation refused, by counter name (as IngestPipeline.append counts them). */
  rejected: Record<string, number>;
}

/** A read body whose events went to the writer: per batchHostKey, its slices in order. */
export type HandedOverBulk = ReadBulk & { handedOver?: Record<string, HandedOverSlice[]> };

/** The only gate state a preparer keeps is a filtered process's verdict: with no filter, none. */
const preparer = new EventPreparer(new FilterGate());
let lastRef = 0;

/** Hands `read`'s events over on `port` and answers it without them; a body it cannot take is answered as read. */
export function handOverEvents(read: ReadBulk, port: MessagePort): HandedOverBulk {
  if (read.items.some((item) => 'decoded' in item && 'security' in item.decoded)) return read;
  const byHost = new Map<string, SensorEvent[]>();
  // A body names a few hosts, each in most of its items.
  const hostKeys = new Map<string, string>();
  for (const item of read.items) {
    if (!('decoded' in item) || !('events' in item.decoded)) continue;
    const { decoded } = item;
    let key = hostKeys.get(decoded.hostname);
    if (key === undefined) hostKeys.set(decoded.hostname, (key = batchHostKey(shortName(decoded.hostname))));
    let events = byHost.get(key);
    if (events === undefined) byHost.set(key, (events = []));
    for (const event of decoded.events) events.push(event);
    decoded.events = [];
  }
  const handedOver: Record<string, HandedOverSlice[]> = {};
  for (const [key, events] of byHost) {
    // As SysmonBatch stores a host: in time order, since shippers do not keep it.
    events.sort((a, b) => a.ts - b.ts);
    handedOver[key] = [];
    for (let start = 0; start < events.length; start += MAX_EVENTS_PER_BATCH) {
      handedOver[key].push(handOver(events.slice(start, start + MAX_EVENTS_PER_BATCH), port));
    }
  }
  return { digest: read.digest, items: inRuns(read.items), handedOver };
}

/**
 * The items, their events gone, as runs of items alike (ReadItem.more): a body is mostly one
 * host's stored events one after another, which the request thread would otherwise parse and
 * settle as an object each.
 */
function inRuns(items: readonly ReadItem[]): ReadItem[] {
  const runs: ReadItem[] = [];
  let run: ReadItem | undefined;
  for (const item of items) {
    if (run !== undefined && item.head.line === runLine(run.head.line, (run.more ?? 0) + 1) && alike(run, item)) {
      run.more = (run.more ?? 0) + 1;
    } else {
      runs.push(item);
      run = item;
    }
  }
  return runs;
}

/** Whether `item` is answered and settled as `run` is: same action, index and id, same host and outcome, no file to record. */
function alike(run: ReadItem, item: ReadItem): boolean {
  const [a, b] = [run.head, item.head];
  if (a.action !== b.action || a.index !== b.index || a.id !== b.id || !('decoded' in run) || !('decoded' in item)) return false;
  return sameOutcome(run.decoded, item.decoded);
}

function sameOutcome(a: Unsettled, b: Unsettled): boolean {
  if ('security' in a || 'security' in b) return false;
  if ('events' in a) return 'events' in b && a.events.length === 0 && b.events.length === 0 && a.binary === undefined && b.binary === undefined && a.hostname === b.hostname && a.osType === b.osType;
  if ('events' in b || a.reason !== b.reason || a.detail !== b.detail) return false;
  const [hostA, hostB] = ['hostname' in a ? a : undefined, 'hostname' in b ? b : undefined];
  return hostA?.hostname === hostB?.hostname && hostA?.osType === hostB?.osType;
}

function handOver(events: readonly SensorEvent[], port: MessagePort): HandedOverSlice {
  const { valid, rejected } = validateEvents(events);
  const counts: Record<string, number> = {};
  for (const { reason } of rejected) counts[counter.eventRejected(reason)] = (counts[counter.eventRejected(reason)] ?? 0) + 1;
  for (const event of valid) normalizeEvent(event);
  // The scope names no sensor: without filters, preparing never reads it.
  const { processes } = preparer.prepare({ sensorId: 0, groupId: 0, osType: 'windows' }, valid);
  const ref = `${threadId}.${++lastRef}`;
  port.postMessage({ ref, processes } satisfies HandedOverBatch);
  return { ref, events: valid.length, rejected: counts };
}
