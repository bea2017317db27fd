/** Wire shapes of watchlists, as reference admin §1.2 recorded them from a real 6.2 server. */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

const NullableText = Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 4096 });
const IndexType = Type.Union([Type.Literal('events'), Type.Literal('modules')], {
  description: 'events: process search; modules: binary search',
});

export const Watchlist = Type.Object({
  id: Type.String({ description: 'a string here, an integer in the reply to POST (as Carbon Black answers)' }),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  search_query: Type.String({ description: 'the URL query string, as stored' }),
  index_type: IndexType,
  enabled: Type.Boolean(),
  readonly: Type.Boolean(),
  group_id: Type.Integer(),
  alliance_id: Type.Union([Type.Integer(), Type.Null()]),
  from_alliance: Type.Boolean(),
  date_added: Type.String({ description: '"YYYY-MM-DD HH:MM:SS.ffffff±HH:MM"' }),
  last_hit: Type.Union([Type.String(), Type.Null()], { description: 'time of the latest hit, as date_added' }),
  last_hit_count: Type.Integer({ description: 'hits of the latest run that found any' }),
  total_hits: Type.String({ description: 'every hit found, as numeric text' }),
  total_tags: Type.String({ description: 'documents tagged, as numeric text' }),
  search_timestamp: Type.String({ description: 'when the search last ran, "YYYY-MM-DDTHH:MM:SS.ffffffZ" (the epoch when never)' }),
});
export type Watchlist = Static<typeof Watchlist>;

export const WatchlistParams = Type.Object({ id: IntegerId });

const WatchlistInput = {
  name: Type.String({ minLength: 1, maxLength: 1024 }),
  search_query: Type.String({ minLength: 1, maxLength: 65536, examples: ['cb.urlver=1&q=process_name%3Acmd.exe'] }),
  index_type: IndexType,
  description: NullableText,
  enabled: Type.Boolean(),
  readonly: Type.Boolean({ description: 'true: only enabled can change, and it cannot be deleted' }),
  group_id: Type.Integer({ minimum: -1, maximum: 2 ** 31 - 1 }),
  alliance_id: Type.Unsafe<number | null>({ type: ['integer', 'null'] }),
  from_alliance: Type.Boolean(),
};

/** cbapi and the console send id null; a client may ask for a known id (reference admin §1.1). */
export const WatchlistCreateBody = Type.Object({
  // Null first: with type coercion, an earlier integer branch would read null as 0.
  id: Type.Optional(Type.Union([Type.Null(), Type.Integer(), Type.String({ maxLength: 32 })])),
  name: WatchlistInput.name,
  search_query: WatchlistInput.search_query,
  index_type: Type.Optional(IndexType),
  description: Type.Optional(WatchlistInput.description),
  enabled: Type.Optional(WatchlistInput.enabled),
  readonly: Type.Optional(WatchlistInput.readonly),
  group_id: Type.Optional(WatchlistInput.group_id),
  alliance_id: Type.Optional(WatchlistInput.alliance_id),
  from_alliance: Type.Optional(WatchlistInput.from_alliance),
});
export type WatchlistCreateBody = Static<typeof WatchlistCreateBody>;

/** The full record as read, or only some fields; counters, dates and id are ignored. */
export const WatchlistUpdateBody = Type.Partial(Type.Object(WatchlistInput));
export type WatchlistUpdateBody = Static<typeof WatchlistUpdateBody>;

