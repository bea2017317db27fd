/**
 * One process as analysts read it (reference core §4): its summary with parent, children and
 * siblings, its segments, its events in each API version's format, and its preview.
 *
 * Visibility: a caller sees a process when they may view its group (the sensor's group when the
 * events came in); any other process, like an unknown one, is a 404 so that its existence does
 * not leak. Relatives outside the caller's groups are left out.
 */
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { canViewGroup, type Principal } from '../../domain/permissions.js';
import { parseProcessId, processId, REFERENCE_SEGMENT, uniqueId, type ProcessKey } from '../../domain/process-id.js';
import { parseClientTime } from '../../domain/record-time.js';
import { documentTime } from '../../domain/wire-time.js';
import type { SegmentTagsSource } from '../../detect/document-tags.js';
import { wireTags, type WireTags } from '../../detect/document-tags.wire.js';
import type { EventApiVersion } from './event-formats/index.js';
import {
  encodeEventLists, eventLists, eventsResponseBody, timeOrdered, type EncodedEventLists, type EventLists, type EventWindow, type ListedEvent,
} from './process-events.js';
import type { EventListStore } from './process-events.store.js';
import { mergeSpans, processDocument, spannedDocument, type ProcessRecord, type SegmentRecord, type SegmentSpan } from './process-document.js';
import { DEFAULT_CHILDREN, type EventsQuery, type SegmentList, type SummaryV1, type SummaryV2 } from './process-detail.schemas.js';
import type { GroupScope, ProcessDetailStore, RelatedProcess } from './process-detail.store.js';
import { highlighter, previewLists } from './process-preview.js';
import { processReport } from './process-report.js';

const SEGMENT = /^\d{1,16}$/;
const MD5 = /^[0-9a-f]{32}$/i;

interface Located {
  process: ProcessRecord;
  /** The segments asked for, oldest first. */
  segments: SegmentRecord[];
  span: SegmentSpan;
}

type Relatives = Pick<SummaryV1, 'parent' | 'children' | 'siblings'>;

/**
 * Reads of up to this many events decode on the request thread (about a millisecond); larger ones
 * go to a read worker, whose queue and round trip would cost a small read more than it saves.
 */
const EVENTS_READ_INLINE = 2_000;

export class ProcessDetailService {
  constructor(
    private readonly store: ProcessDetailStore,
    /** Where reads of more than EVENTS_READ_INLINE events run; on the request thread when absent. */
    private readonly largeReads?: EventListStore,
    private readonly tags: SegmentTagsSource = async () => new Map(),
    private readonly now: () => number = Date.now,
  ) {}

  /** v1: `{process, parent, children, siblings}`. */
  async summary(actor: Principal, id: string, segment: string, children: number): Promise<SummaryV1> {
    const located = await this.locate(actor, id, segment);
    const [process, relatives] = await Promise.all([this.taggedDocument(located), this.relatives(actor, located.process, children)]);
    return { process, ...relatives };
  }

  /** v2: the process document itself, with parent, children and siblings beside its fields. */
  async flatSummary(actor: Principal, id: string, segment: string, children: number): Promise<SummaryV2> {
    const located = await this.locate(actor, id, segment);
    const [process, relatives] = await Promise.all([this.taggedDocument(located), this.relatives(actor, located.process, children)]);
    return { ...process, ...relatives };
  }

  async segmentList(actor: Principal, id: string): Promise<SegmentList> {
    const { process, segments } = await this.locate(actor, id, '0');
    const processGuid = processId(keyOf(process));
    return {
      process: {
        segments: segments.map((segment) => ({
          unique_id: uniqueId(processGuid, segment.segmentId),
          last_update: documentTime(segment.lastUpdateMs),
          last_server_update: documentTime(segment.lastServerUpdateMs),
          event_counts: Object.fromEntries(Object.entries(segment.counts).filter(([, count]) => count > 0)),
        })),
      },
    };
  }

  /** The events response as JSON bytes, its lists encoded where they were read (see EncodedEventLists). */
  async events(actor: Principal, version: EventApiVersion, id: string, segment: string, query: EventsQuery = {}): Promise<Buffer> {
    const started = performance.now();
    const { process, segments, span } = await this.locate(actor, id, segment);
    const window = {
      fromMs: clientTime(query['cb.min_last_update'], 'cb.min_last_update'),
      toMs: clientTime(query['cb.max_last_update'], 'cb.max_last_update'),
      start: query['cb.event_start'],
      count: query['cb.event_count'],
    };
    const { members, binaries } = await this.encodedEventLists(process, segments, window, version);
    const head = {
      elapsed: (performance.now() - started) / 1000,
      process: {
        ...(await this.taggedDocument({ process, segments, span })),
        binaries: await this.binaries(actor, process, binaries),
        fork_children_count: 0,
        exec_events_count: 0,
      },
    };
    return eventsResponseBody(head, members);
  }

  async preview(actor: Principal, version: 1 | 2, id: string, segment: string, q: string | undefined) {
    const marker = highlighter(q, this.now());
    const { process, segments, span } = await this.locate(actor, id, segment);
    const { lists } = await this.listEvents(process, segments, {}, version);
    return { ...processDocument(process, span), segment: '', ...previewLists(lists, marker) };
  }

  /** The zip report: the document, the v1 summary and CSVs of the file, registry, module and network events. */
  async report(actor: Principal, id: string, segment: string): Promise<Readable> {
    const { process, segments, span } = await this.locate(actor, id, segment);
    const document = spannedDocument(process, span);
    const summary = { process: document, ...(await this.relatives(actor, process, DEFAULT_CHILDREN)) };
    return processReport(document, summary, await this.orderedEvents(process, segments), span.lastServerUpdateMs);
  }

  /** Threat-intelligence hits need Carbon Black's cloud, with which Vigil shares nothing. */
  async threatIntelHits(actor: Principal, id: string, segment: string): Promise<never> {
    await this.locate(actor, id, segment);
    throw new ConflictError('Threat intelligence sharing is not enabled on this server');
  }

  /** How widely a binary ran, over the sensors the caller can see (cbapi's Binary.frequency). */
  async hostCount(actor: Principal, md5: string) {
    if (!MD5.test(md5)) throw new InvalidRequestError('md5 must be 32 hexadecimal digits');
    return this.store.md5Frequency(md5.toLowerCase(), scopeOf(actor));
  }

  /** The document over the located span, with the watchlists and feeds that tagged the process (any of its segments). */
  private async taggedDocument(located: Located): Promise<ReturnType<typeof spannedDocument> & WireTags> {
    const segmentRow = located.segments[0]!.row;
    const tags = await this.tags([segmentRow]);
    return { ...spannedDocument(located.process, located.span), ...wireTags(tags.get(segmentRow), 'process') };
  }

  private async locate(actor: Principal, id: string, segment: string): Promise<Located> {
    const key = parseProcessId(id);
    const process = key && SEGMENT.test(segment) ? await this.store.find(key) : undefined;
    if (!process || !canViewGroup(actor, process.groupId)) throw new NotFoundError(`No process ${id}`);
    const all = await this.store.segments(process.row);
    const segmentId = Number(segment);
    // 6.x servers refer to parents, children and targets at segment 1, meaning the whole process.
    const segments = segmentId === 0 || segmentId === REFERENCE_SEGMENT ? all : all.filter((s) => s.segmentId === segmentId);
    if (segments.length === 0) throw new NotFoundError(`Process ${id} has no segment ${segment}`);
    return { process, segments, span: mergeSpans(segments) };
  }

  private async listEvents(process: ProcessRecord, segments: readonly SegmentRecord[], window: EventWindow, version: EventApiVersion): Promise<EventLists> {
    const segmentRows = segments.map((s) => s.row);
    const events = segments.reduce((sum, segment) => sum + segment.eventCount, 0);
    if (this.largeReads && events > EVENTS_READ_INLINE) {
      return this.largeReads.list({ pid: process.pid, startMs: process.startMs, sensorId: process.sensorId, segmentRows, window, version });
    }
    return eventLists(await this.store.events(keyOf(process), segmentRows), window, version, process.sensorId);
  }

  private async encodedEventLists(process: ProcessRecord, segments: readonly SegmentRecord[], window: EventWindow, version: EventApiVersion): Promise<EncodedEventLists> {
    const events = segments.reduce((sum, segment) => sum + segment.eventCount, 0);
    if (this.largeReads && events > EVENTS_READ_INLINE) {
      return this.largeReads.listEncoded({
        pid: process.pid, startMs: process.startMs, sensorId: process.sensorId, segmentRows: segments.map((s) => s.row), window, version,
      });
    }
    return encodeEventLists(await this.listEvents(process, segments, window, version));
  }

  private async orderedEvents(process: ProcessRecord, segments: readonly SegmentRecord[]): Promise<ListedEvent[]> {
    return timeOrdered(await this.store.events(keyOf(process), segments.map((s) => s.row)));
  }

  private async relatives(actor: Principal, process: ProcessRecord, limit: number): Promise<Relatives> {
    const scope = scopeOf(actor);
    const [parent, children, siblings] = await Promise.all([
      this.parent(actor, process),
      this.store.children(keyOf(process), scope, limit),
      this.store.siblings(process, scope, limit),
    ]);
    return { parent, children: children.map(relatedDocument), siblings: siblings.map(relatedDocument) };
  }

  private async parent(actor: Principal, process: ProcessRecord): Promise<Relatives['parent']> {
    if (process.parentStartMs === null) return {};
    const parent = await this.store.find({ sensorId: process.sensorId, pid: process.parentPid, startMs: process.parentStartMs });
    if (!parent || !canViewGroup(actor, parent.groupId)) return {};
    return processDocument(parent, mergeSpans(await this.store.segments(parent.row)));
  }

  /** Signature facts for the binaries the process and its listed events name (`named`), by uppercase md5. */
  private async binaries(actor: Principal, process: ProcessRecord, named: readonly string[]) {
    const md5s = new Set(named);
    if (process.md5) md5s.add(process.md5);
    const signatures = await this.store.binarySignatures([...md5s], scopeOf(actor));
    return Object.fromEntries(signatures.map((s) => [
      s.md5.toUpperCase(),
      s.digsigPublisher === undefined ? { digsig_result: s.digsigResult } : { digsig_result: s.digsigResult, digsig_publisher: s.digsigPublisher },
    ]));
  }
}

function keyOf(process: ProcessRecord): ProcessKey {
  return { sensorId: process.sensorId, pid: process.pid, startMs: process.startMs };
}

function scopeOf(actor: Principal): GroupScope {
  if (actor.globalAdmin) return 'all';
  return [...actor.groupAccess.keys()].filter((groupId) => canViewGroup(actor, groupId));
}

function relatedDocument({ process, span }: RelatedProcess) {
  const document = { ...processDocument(process, span), child_proc_type: 'exec' };
  return process.endMs === null ? document : { ...document, end: documentTime(process.endMs) };
}

function clientTime(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseClientTime(text);
  if (ms === undefined) throw new InvalidRequestError(`${name} must be a time such as 2017-04-29T04:21:18Z`);
  return ms;
}
