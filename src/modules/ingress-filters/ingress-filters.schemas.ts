/** Wire shapes of ingress filters, as reference admin §6.2 and cbapi's ingress_filter.yaml give them. */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

/**
 * Values in Carbon Black's syntax: `rx|` regex, `rxi|` case-insensitive regex, a path holding `*`
 * or `?` is a glob, anything else an exact match (src/ingest/ingress-filter-values.ts).
 */
const FilterValues = Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 1000 });
const Int32 = Type.Integer({ minimum: -(2 ** 31), maximum: 2 ** 31 - 1 });

/** Every field a client writes, all present once stored (ingress-filters.defaults.ts fills the gaps). */
export const IngressFilterSettings = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  description: Type.String({ maxLength: 4096 }),
  enabled: Type.Boolean(),
  priority: Type.Integer({ ...Int32, description: 'Higher priority filters are applied first; negatives allowed.' }),
  version: Type.Integer({ ...Int32, description: 'Not used (as in Carbon Black).' }),
  internal: Type.Boolean({ description: 'Not used (as in Carbon Black).' }),
  global: Type.Boolean({ description: 'true: every sensor; false: the sensors or groups listed.' }),
  group_ids: Type.Array(IntegerId, { maxItems: 10000, description: 'Groups the filter applies to when not global.' }),
  sensor_ids: Type.Array(IntegerId, {
    maxItems: 10000, description: 'Sensors the filter applies to when not global; empty: every sensor of group_ids.',
  }),
  os_mask: Type.Integer({ minimum: 0, maximum: 7, description: 'Bit mask: 1 windows, 2 osx, 4 linux.' }),
  path_filters: FilterValues,
  cmdline_filters: FilterValues,
  md5_filters: FilterValues,
  descendant_filtering_level: Type.Integer({
    minimum: -1, maximum: 2 ** 31 - 1, description: '0 the matched process only, n that many generations of descendants, -1 all.',
  }),
  filter_all_events: Type.Boolean({ description: 'true: drop every event of a matched process; false: only those the per-event filters match.' }),
  regmod_filters: FilterValues,
  modload_filters: FilterValues,
  filemod_filters: FilterValues,
  non_binary_filemod_filters: FilterValues,
  netconn_filters: FilterValues,
  crossproc_filters: FilterValues,
  filter_on_sensor: Type.Boolean({ description: 'Stored only: Vigil does not push filters to sensors.' }),
  filter_on_server: Type.Boolean({ description: 'false: the server passes everything through.' }),
  track_metrics: Type.Boolean({ description: 'Measure hit_rate even while the filter is disabled.' }),
});
export type IngressFilterSettings = Static<typeof IngressFilterSettings>;

export const IngressFilter = Type.Object({
  id: Type.String(),
  ...IngressFilterSettings.properties,
  /** cbapi's ingress_filter.yaml spells cmdline_filters this way; both are answered and read. */
  command_line_filters: FilterValues,
  hit_rate: Type.Number({ description: 'Share of new processes in scope that matched, over the last 15 minutes (0.01 = 1%).' }),
  create_timestamp: Type.String({ format: 'date-time' }),
  modify_timestamp: Type.String({ format: 'date-time' }),
  create_user_id: Type.Integer(),
  modify_user_id: Type.Integer(),
});
export type IngressFilter = Static<typeof IngressFilter>;

/**
 * A filter as clients send it: any field left out keeps its default (create) or value (update);
 * read-only fields (hit_rate, timestamps, user ids) are ignored.
 */
const IngressFilterInput = Type.Object({
  /** Honoured on create when it is 1-64 letters, digits and dashes; otherwise a uuid is generated. */
  id: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 4096 })),
  ...Type.Partial(IngressFilterSettings).properties,
  command_line_filters: Type.Optional(FilterValues),
});
export type IngressFilterInput = Static<typeof IngressFilterInput>;

/** cbapi creates a filter by POSTing an array of one. */
export const IngressFilterCreateBody = Type.Array(
  Type.Object({ ...IngressFilterInput.properties, name: IngressFilterSettings.properties.name }),
  { minItems: 1, maxItems: 100 },
);
export type IngressFilterCreateBody = Static<typeof IngressFilterCreateBody>;

export const IngressFilterUpdateBody = IngressFilterInput;
export type IngressFilterUpdateBody = IngressFilterInput;

export const IngressFilterParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 4096 }) });

/** The ids of the filters a POST created, in the order given; cbapi reads element 0. */
export const CreatedIds = Type.Array(Type.String());
