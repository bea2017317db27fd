/** Wire shapes of one process's routes: summary, segments, events, preview (reference core §4). */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ALLIANCE_PROPERTIES, WatchlistTagsWire } from '../../detect/document-tags.wire.js';
import { ChildprocObject, NetconnIntegerObject, NetconnTextObject } from './event-formats/objects.js';
import { ProcessDocument, SpanFields } from './process-document.js';

export const ProcessParams = Type.Object({
  id: Type.String({ description: 'process id (8-4-4-4-12 hex); anything else names no process (404)' }),
});

export const SegmentParams = Type.Object({
  id: ProcessParams.properties.id,
  segment: Type.String({
    description: 'segment id (epoch ms); 0 merges every segment, and 1 (how 6.x servers refer to parents and children) does the same',
  }),
});

/** How many children and siblings a summary lists unless asked otherwise (reference core §4.1). */
export const DEFAULT_CHILDREN = 15;

export const SummaryQuery = Type.Object({
  children: Type.Integer({ minimum: 0, maximum: 10_000, default: DEFAULT_CHILDREN, description: 'how many children (and siblings) to list' }),
});

export const EventsQuery = Type.Object({
  'cb.event_start': Type.Optional(Type.Integer({ minimum: 0, description: 'skip this many events (in time order)' })),
  'cb.event_count': Type.Optional(Type.Integer({ minimum: 0, description: 'return at most this many events' })),
  'cb.min_last_update': Type.Optional(Type.String({ description: 'only events at or after this time (sensor clock), e.g. 2017-04-29T04:21:18Z' })),
  'cb.max_last_update': Type.Optional(Type.String({ description: 'only events at or before this time (sensor clock)' })),
});
export type EventsQuery = Static<typeof EventsQuery>;

export const PreviewQuery = Type.Object({
  q: Type.Optional(Type.String({ description: 'a process query whose matches are wrapped in PREPREPRE…POSTPOSTPOST' })),
});

export const HostCountQuery = Type.Object({
  'cb.freqver': Type.Optional(Type.String()),
  name: Type.Literal('md5', { description: 'what to count by; md5 is the one there is' }),
  md5: Type.String({ pattern: '^[0-9a-fA-F]{32}$' }),
});

export const HostCount = Type.Object({
  hostCount: Type.Integer({ description: 'sensors that ran a process from this binary' }),
  globalCount: Type.Integer({ description: 'sensors in all' }),
  numDocs: Type.Integer({ description: 'process segments of such processes' }),
});

/** A child or sibling: its whole-process document, how it came to be, and when it ended. */
export const RelatedDocument = Type.Composite([
  ProcessDocument,
  Type.Object({
    child_proc_type: Type.String({ description: 'exec' }),
    end: Type.Optional(Type.String({ description: 'when it ended (sensor clock), if it has' })),
  }),
]);

/** The process document over a span of segments, with the watchlists and feeds that tagged the process. */
const SpannedDocument = Type.Object({ ...ProcessDocument.properties, ...SpanFields, watchlists: WatchlistTagsWire }, ALLIANCE_PROPERTIES);
export type SpannedDocument = Static<typeof SpannedDocument>;

const Relatives = {
  parent: Type.Partial(ProcessDocument, { description: 'the parent\'s document, or {} when the server does not know it' }),
  children: Type.Array(RelatedDocument),
  siblings: Type.Array(RelatedDocument),
};

export const SummaryV1 = Type.Object({ process: SpannedDocument, ...Relatives });
export type SummaryV1 = Static<typeof SummaryV1>;

/** v2: the process document itself, with the relatives beside its fields. */
export const SummaryV2 = Type.Object({ ...SpannedDocument.properties, ...Relatives }, ALLIANCE_PROPERTIES);
export type SummaryV2 = Static<typeof SummaryV2>;

export const SegmentList = Type.Object({
  process: Type.Object({
    segments: Type.Array(Type.Object({
      unique_id: Type.String(),
      last_update: Type.String(),
      last_server_update: Type.String(),
      event_counts: Type.Record(Type.String(), Type.Integer(), { description: 'per event type, the non-zero counts' }),
    })),
  }),
});
export type SegmentList = Static<typeof SegmentList>;

const Strings = Type.Optional(Type.Array(Type.String()));

/** The `*_complete` lists as one version writes them. */
function completeLists(netconn: TSchema, childproc: TSchema) {
  return Type.Object({
    filemod_complete: Strings,
    regmod_complete: Strings,
    modload_complete: Strings,
    netconn_complete: Type.Optional(Type.Array(netconn)),
    childproc_complete: Type.Optional(Type.Array(childproc)),
    crossproc_complete: Strings,
    processblock_complete: Type.Optional(Type.Array(Type.String({ description: 'a JSON text' }))),
  });
}

export const COMPLETE_LISTS = {
  1: completeLists(Type.String(), Type.String()),
  2: completeLists(NetconnIntegerObject, Type.String()),
  3: completeLists(NetconnIntegerObject, ChildprocObject),
  4: completeLists(NetconnTextObject, ChildprocObject),
} as const;

const EventsExtras = Type.Object({
  binaries: Type.Record(Type.String(), Type.Object({
    digsig_result: Type.String(),
    digsig_publisher: Type.Optional(Type.String()),
  }), { description: 'what the server knows of the binaries the events name, by uppercase md5' }),
  fork_children_count: Type.Integer(),
  exec_events_count: Type.Integer(),
});

export function eventsReply(version: keyof typeof COMPLETE_LISTS) {
  return Type.Object({
    elapsed: Type.Number({ description: 'seconds' }),
    process: Type.Object({ ...SpannedDocument.properties, ...EventsExtras.properties, ...COMPLETE_LISTS[version].properties }, ALLIANCE_PROPERTIES),
  });
}

/** The preview: a flat document with a few events of each kind and the total counts. */
export function previewReply(version: 1 | 2) {
  return Type.Composite([ProcessDocument, Type.Object({ segment: Type.String() }), COMPLETE_LISTS[version]]);
}
