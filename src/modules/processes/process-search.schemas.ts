/** Wire shapes of process search (reference core §3.2–3.5). */
import { ALLIANCE_PROPERTIES, WatchlistTagsWire, type AllianceFields } from '../../detect/document-tags.wire.js';
import { Type, type Static } from '@sinclair/typebox';
import { ProcessDocument } from './process-document.js';

/**
 * A search parameter as clients send it: a query-string value (repeated keys give a list), or in a
 * POST body a JSON scalar or list (the legacy client sends `"q": ["…"]`, `"rows": 10`).
 */
const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
export const SearchParam = Type.Union([Scalar, Type.Array(Scalar)]);

const param = (description: string) => Type.Optional(Type.Union([Scalar, Type.Array(Scalar)], { description }));

/** Parameters shared by process and binary search. */
export const COMMON_SEARCH_PARAMS = {
  q: param('The query (docs/query-language.md); empty or absent: every document'),
  rows: param('Page size, 0 to 10000 (default 10); 0 answers the count and facets only'),
  start: param('Offset of the first document (default 0)'),
  sort: param('"<field> asc|desc"'),
  facet: param('"true" for facets'),
  'facet.field': param('A facet to compute (repeatable)'),
  'cb.urlver': param('Sent by every client; ignored'),
};

export const ProcessSearchParams = Type.Object({
  ...COMMON_SEARCH_PARAMS,
  'cb.group': param('"id": one document per process'),
  'cb.min_last_update': param('Only segments with events at or after this time (sensor clock), e.g. 2024-05-01T00:00:00Z'),
  'cb.max_last_update': param('Only segments whose last event is at or before this time (sensor clock)'),
  'cb.min_last_server_update': param('As cb.min_last_update on the server\'s clock'),
  'cb.max_last_server_update': param('As cb.max_last_update on the server\'s clock'),
}, {
  additionalProperties: SearchParam,
  description: 'Also cb.q.<field>=<value> and cb.fq.<field>=<value>: terms ANDed with q; repeats of one are ORed',
});
export type SearchParams = Record<string, Static<typeof SearchParam> | undefined>;

export const FacetEntry = Type.Object({
  name: Type.String(),
  value: Type.Integer({ description: 'matching documents with this value' }),
  percent: Type.Integer({ description: 'value / total_results × 100, rounded' }),
  ratio: Type.Number({ description: 'value / total_results × 100, to one decimal' }),
});
export type FacetEntry = Static<typeof FacetEntry>;

/** A search result: the process document (process-document.ts) of one segment, with the detection tags that hit it. */
export const ProcessSearchDocument = Type.Object({ ...ProcessDocument.properties, watchlists: WatchlistTagsWire }, ALLIANCE_PROPERTIES);
export type ProcessSearchDocument = Static<typeof ProcessSearchDocument> & AllianceFields;

export const ProcessSearchReply = Type.Object({
  terms: Type.Array(Type.String(), { description: 'the query\'s terms as parsed' }),
  results: Type.Array(ProcessSearchDocument),
  elapsed: Type.Number({ description: 'seconds' }),
  comprehensive_search: Type.Boolean(),
  all_segments: Type.Boolean(),
  total_results: Type.Integer({ description: 'exact' }),
  highlights: Type.Array(Type.Object({ name: Type.String(), ids: Type.Array(Type.String()) })),
  facets: Type.Record(Type.String(), Type.Array(FacetEntry)),
  tagged_pids: Type.Record(Type.String(), Type.Array(Type.Object({ name: Type.String(), id: Type.Integer() }))),
  start: Type.Integer(),
  incomplete_results: Type.Boolean(),
  filtered: Type.Record(Type.String(), Type.Integer()),
});
export type ProcessSearchReply = Static<typeof ProcessSearchReply>;
