/**
 * Fourth stage, on the request's thread: a batch's valid, normalized events become per-process
 * groups ready for the writer — ingress filters applied, events encoded for storage, counts and
 * search terms gathered. The writer thread then only does what needs the database, so the two
 * threads share the work of an upload.
 */
import { LRUCache } from 'lru-cache';
import { encodeChunk } from './event-codec.js';
import type { EventOf, SensorEvent } from './event.schemas.js';
import type { FilterGate, GateScope, GateVerdict } from './ingress-gate.js';
import { eventTerms } from './terms.js';

/** The event types a segment counts (`filemod_count` … `processblock_count`), in this order. */
export const COUNTED_TYPES = ['filemod', 'regmod', 'netconn', 'modload', 'childproc', 'crossproc', 'processblock'] as const;
const COUNT_INDEX = new Map<string, number>(COUNTED_TYPES.map((type, i) => [type, i]));

/** What a run of one process's events adds to its segment. */
export interface EventsSummary {
  /** Per COUNTED_TYPES entry. */
  counts: number[];
  lastTs: number;
  /** Distinct search terms, flat: field, value, field, value, … */
  terms: string[];
}

export interface PreparedProcess {
  pid: number;
  processStart: number;
  /** The process's start event, when this batch carries it. */
  start?: EventOf<'process_start'> | undefined;
  /** Sensor time of its end event, when this batch carries it. */
  endTs?: number | undefined;
  /** How many events were kept (none, when the filters dropped them all). */
  eventCount: number;
  /** The kept events as one chunk (event-codec.ts), in the order sent. */
  chunk: string;
  /** Sensor time of the first kept event. */
  firstTs: number;
  summary: EventsSummary;
}

export interface PreparedEvents {
  processes: PreparedProcess[];
  /** Events the ingress filters dropped. */
  filtered: number;
}

export function summarize(events: readonly SensorEvent[]): EventsSummary {
  const counts = new Array<number>(COUNTED_TYPES.length).fill(0);
  const seen = new Map<string, Set<string>>();
  const terms: string[] = [];
  const add = (field: string, value: string) => {
    let values = seen.get(field);
    if (!values) seen.set(field, (values = new Set()));
    if (values.has(value)) return;
    values.add(value);
    terms.push(field, value);
  };
  let lastTs = 0;
  for (const event of events) {
    const index = COUNT_INDEX.get(event.type);
    if (index !== undefined) counts[index]!++;
    if (event.ts > lastTs) lastTs = event.ts;
    eventTerms(event, add);
  }
  return { counts, lastTs, terms };
}

/** Processes the filters judged, remembered so that their later events and descendants follow. */
const VERDICTS_KEPT = 200_000;

export class EventPreparer {
  /**
   * Least recently used forgotten first. Not a Map trimmed from its front: V8 keeps deleted
   * entries as holes until it rehashes, and every trim walked over all of them.
   */
  private readonly verdicts = new LRUCache<string, GateVerdict>({ max: VERDICTS_KEPT });

  constructor(private readonly gate: FilterGate) {}

  prepare(scope: GateScope, events: readonly SensorEvent[]): PreparedEvents {
    const processes: PreparedProcess[] = [];
    let filtered = 0;
    for (const group of groupByProcess(events)) {
      const { start } = group;
      const verdict = start ? this.judge(scope, group, start) : this.verdicts.get(verdictKey(scope.sensorId, group.pid, group.processStart));
      const kept = verdict ? group.events.filter((event) => !this.gate.dropsEvent(verdict, event)) : group.events;
      filtered += group.events.length - kept.length;
      processes.push({
        pid: group.pid,
        processStart: group.processStart,
        start,
        endTs: group.endTs,
        eventCount: kept.length,
        chunk: encodeChunk(kept),
        firstTs: kept[0]?.ts ?? 0,
        summary: summarize(kept),
      });
    }
    return { processes, filtered };
  }

  private judge(scope: GateScope, group: ProcessGroup, start: EventOf<'process_start'>): GateVerdict | undefined {
    const key = verdictKey(scope.sensorId, group.pid, group.processStart);
    const parent = start.parent_pid === undefined ? undefined : this.verdicts.peek(verdictKey(scope.sensorId, start.parent_pid, start.parent_start));
    const verdict = this.gate.judgeProcess(scope, { path: start.path, cmdline: start.cmdline ?? '', md5: start.md5 ?? '' }, parent);
    if (verdict) this.verdicts.set(key, verdict);
    else this.verdicts.delete(key);
    return verdict;
  }
}

/** The filter verdicts' key: one process of one sensor. */
function verdictKey(sensorId: number, pid: number, processStart: number | undefined): string {
  return `${sensorId}:${pid}:${processStart}`;
}

/** One acting process's events in a batch, with what the writer needs of its start and end. */
interface ProcessGroup {
  pid: number;
  processStart: number;
  /** In the order sent. */
  events: SensorEvent[];
  /** Its first process_start event, if the batch carries one. */
  start: EventOf<'process_start'> | undefined;
  /** Sensor time of its first process_end event, if the batch carries one. */
  endTs: number | undefined;
  /** Another process of the batch with the same pid (the pid was reused). */
  samePid: ProcessGroup | undefined;
}

/**
 * The batch's events per acting process, in the order each process first appears, found in one
 * pass: keyed by pid (a number, so no key string per event), with the rare reused pid chained.
 */
function groupByProcess(events: readonly SensorEvent[]): ProcessGroup[] {
  const byPid = new Map<number, ProcessGroup>();
  const groups: ProcessGroup[] = [];
  for (const event of events) {
    const first = byPid.get(event.pid);
    let group = first;
    while (group !== undefined && group.processStart !== event.process_start) group = group.samePid;
    if (group === undefined) {
      group = { pid: event.pid, processStart: event.process_start, events: [], start: undefined, endTs: undefined, samePid: first };
      byPid.set(event.pid, group);
      groups.push(group);
    }
    group.events.push(event);
    if (event.type === 'process_start') group.start ??= event;
    else if (event.type === 'process_end') group.endTs ??= event.ts;
  }
  return groups;
}
