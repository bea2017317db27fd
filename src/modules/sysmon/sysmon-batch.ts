/**
 * One request's Sysmon events on their way to the store: decoded one by one (each kept, or
 * counted by reason), gathered per host, then stored per host through the ordinary pipeline.
 * The JSON-lines and the bulk endpoints both fill one of these.
 */
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { MAX_EVENTS_PER_BATCH } from '../../ingest/event.schemas.js';
import type { SysmonBinary } from '../../ingest/sysmon/sysmon-binaries.js';
import type { HandedOverSlice } from '../../ingest/sysmon/bulk-hand-over.js';
import { batchHostKey, readEvent, runLine } from '../../ingest/sysmon/bulk-read.js';
import type { SysmonDecoder, SysmonHost, Unsettled } from '../../ingest/sysmon/sysmon-decoder.js';
import { NOT_FOR_VIGIL, skipCounter, type SysmonSkipReason } from '../../ingest/sysmon/sysmon-reasons.js';
import type { SysmonIngestReply } from './sysmon-ingest.schemas.js';

type HostOutcome = { sensorId: number; accepted: number; filtered: number; rejected: number };

/** Where the gathered events go: the host's sensor, and the pipeline that stores them. */
export interface SysmonSink {
  store(groupId: number, host: SysmonHost, events: SensorEvent[], counters: Map<string, number>): Promise<HostOutcome>;
  /** A slice of the host's events that a reader thread prepared and handed to the writer (ADR 0035). */
  storeHandedOver(groupId: number, host: SysmonHost, slice: HandedOverSlice, counters: Map<string, number>): Promise<HostOutcome>;
  /** The files the host's events named, each once, after its events are stored. */
  binariesSeen(sensorId: number, binaries: readonly SysmonBinary[]): Promise<void>;
}

/** Errors listed in a reply at most; every one is counted all the same. */
const ERRORS_LISTED = 50;

export interface Skip {
  reason: SysmonSkipReason;
  detail: string;
}

interface HostEvents {
  host: SysmonHost;
  events: SensorEvent[];
  /** Sysmon events of this host that were kept. */
  stored: number;
  /** Kept until the whole batch is read: they are dropped if the host turns out to run Sysmon. */
  security: { line: number; events: SensorEvent[] }[];
  counters: Map<string, number>;
  /** By md5, the first each file was seen under. */
  binaries: Map<string, SysmonBinary>;
  /** Its events, when a reader thread handed them to the writer instead (then `events` is empty). */
  handedOver: HandedOverSlice[] | undefined;
}

export class SysmonBatch {
  private read = 0;
  private readonly skipped: Record<string, number> = {};
  private readonly errors: SysmonIngestReply['errors'] = [];
  private readonly hosts = new Map<string, HostEvents>();

  constructor(private readonly decoder: SysmonDecoder, private readonly nowMs: number) {}

  /** Decodes one event, in any shape flatten() reads; answers why, when it is not kept. */
  add(line: number, document: Record<string, unknown>): Skip | undefined {
    return this.settle(line, readEvent(document, this.nowMs));
  }

  /**
   * An event read as far as it can be elsewhere (readEvent, maybe on a reader thread), settled by
   * this batch's decoder; with `more`, a run of items alike (ReadItem.more), whose events went to the writer.
   */
  settle(line: number, unsettled: Unsettled, more = 0): Skip | undefined {
    this.read += 1 + more;
    const decoded = this.decoder.settle(unsettled, this.nowMs);
    if ('reason' in decoded) {
      for (let k = 0; k <= more; k++) this.skip(runLine(line, k), decoded.reason, decoded.detail, decoded.host);
      return decoded;
    }
    const entry = this.hostEntry(decoded.host);
    if (decoded.security) {
      entry.security.push({ line, events: decoded.events });
      return undefined;
    }
    entry.stored += 1 + more;
    for (const event of decoded.events) entry.events.push(event);
    if (decoded.binary && !entry.binaries.has(decoded.binary.md5)) entry.binaries.set(decoded.binary.md5, decoded.binary);
    return undefined;
  }

  /** Where the settled events' host entries have their events, handed over to the writer (by batchHostKey). */
  handedOver(slices: Readonly<Record<string, HandedOverSlice[]>>): void {
    for (const [key, hostSlices] of Object.entries(slices)) {
      const entry = this.hosts.get(key);
      if (entry !== undefined) entry.handedOver = hostSlices;
    }
  }

  /** A line or item refused before it could be decoded (not JSON, unreadable XML, …). */
  refuse(line: number, reason: SysmonSkipReason, detail: string): void {
    this.read++;
    this.skip(line, reason, detail, undefined);
  }

  /** Stores each host's events (in slices the pipeline takes) and answers what became of them all. */
  async commit(groupId: number, sink: SysmonSink): Promise<SysmonIngestReply> {
    const reply: SysmonIngestReply = {
      duplicate: false, read: this.read, stored: 0, skipped: this.skipped,
      events: { accepted: 0, filtered: 0, rejected: 0 }, hosts: [], errors: this.errors,
    };
    const entries = [...this.hosts.values()];
    for (const entry of entries) this.settleSecurityEvents(entry);
    // Hosts are stored side by side, not one after another: their batches then share the event
    // writer's commits, and the request's events wait for one commit instead of one per host
    // (a bulk body holds several hosts), which kept them alive long enough to be collected the costly way.
    const stored = entries.filter((entry) => entry.stored > 0);
    const outcomes = await Promise.all(stored.map((entry) => storeHost(groupId, entry, sink)));
    stored.forEach((entry, i) => {
      const outcome = outcomes[i]!;
      reply.events.accepted += outcome.accepted;
      reply.events.filtered += outcome.filtered;
      reply.events.rejected += outcome.rejected;
      reply.stored += entry.stored;
      reply.hosts.push({ hostname: entry.host.name, sensor_id: outcome.sensorId, stored: entry.stored });
    });
    return reply;
  }

  private settleSecurityEvents(entry: HostEvents): void {
    const covered = this.decoder.runsSysmon(entry.host);
    for (const { line, events } of entry.security) {
      if (covered) {
        this.skip(line, 'covered_by_sysmon', 'the host runs Sysmon, whose process events say the same', entry.host);
      } else {
        entry.stored++;
        for (const event of events) entry.events.push(event);
      }
    }
  }

  private skip(line: number, reason: SysmonSkipReason, detail: string, host: SysmonHost | undefined): void {
    this.skipped[reason] = (this.skipped[reason] ?? 0) + 1;
    if (!NOT_FOR_VIGIL.has(reason) && this.errors.length < ERRORS_LISTED) this.errors.push({ line, reason, detail });
    if (host) {
      const counters = this.hostEntry(host).counters;
      const name = skipCounter(reason);
      counters.set(name, (counters.get(name) ?? 0) + 1);
    }
  }

  private hostEntry(host: SysmonHost): HostEvents {
    const key = batchHostKey(host.name);
    let entry = this.hosts.get(key);
    if (entry === undefined) {
      entry = { host, events: [], stored: 0, security: [], counters: new Map(), binaries: new Map(), handedOver: undefined };
      this.hosts.set(key, entry);
    }
    return entry;
  }
}

/** One host's events, in slices the pipeline takes (one after another: a sensor's batches are numbered in order), then its files. */
async function storeHost(groupId: number, entry: HostEvents, sink: SysmonSink): Promise<HostOutcome> {
  const total = { sensorId: 0, accepted: 0, filtered: 0, rejected: 0 };
  for (const store of hostSlices(groupId, entry, sink)) {
    const outcome = await store();
    total.sensorId = outcome.sensorId;
    total.accepted += outcome.accepted;
    total.filtered += outcome.filtered;
    total.rejected += outcome.rejected;
  }
  await sink.binariesSeen(total.sensorId, [...entry.binaries.values()]);
  return total;
}

/** The host's slices to store in order; the edge's counters go with the first only. */
function hostSlices(groupId: number, entry: HostEvents, sink: SysmonSink): (() => Promise<HostOutcome>)[] {
  const firstCounters = (first: boolean) => (first ? entry.counters : new Map<string, number>());
  if (entry.handedOver !== undefined) {
    return entry.handedOver.map((slice, i) => () => {
      const counters = firstCounters(i === 0);
      for (const [name, count] of Object.entries(slice.rejected)) counters.set(name, (counters.get(name) ?? 0) + count);
      return sink.storeHandedOver(groupId, entry.host, slice, counters);
    });
  }
  // Exports and shippers do not keep the host's order; a process's timeline should.
  entry.events.sort((a, b) => a.ts - b.ts);
  const slices: (() => Promise<HostOutcome>)[] = [];
  for (let start = 0; start < entry.events.length; start += MAX_EVENTS_PER_BATCH) {
    slices.push(() => sink.store(groupId, entry.host, entry.events.slice(start, start + MAX_EVENTS_PER_BATCH), firstCounters(start === 0)));
  }
  return slices;
}
