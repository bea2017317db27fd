/** Wire shapes of hash bans (reference admin §2) and of the ban_list instruction (docs/sensor-protocol.md). */
import { Type, type Static } from '@sinclair/typebox';
import { BAN_SORT_COLUMNS } from './bans.store.js';

const Md5 = Type.String({ pattern: '^[0-9a-fA-F]{32}$', description: '32 hex digits, either case' });
const NullableTimestamp = Type.Union([Type.String(), Type.Null()]);
/** The 4.x README sends "True"; JSON clients send true. */
const Flag = Type.Union([Type.Boolean(), Type.String({ pattern: '^([Tt]rue|[Ff]alse)$' })]);
/**
 * One schema with two types, not a union: Fastify coerces types, and inside a union the first
 * branch would turn null into "".
 */
const NullableText = Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 4096 });
const Ignored = Type.Optional(Type.Unknown({ description: 'accepted and ignored (clients copy it from older examples)' }));

export const BanAuditEntry = Type.Object({
  username: Type.String(),
  user_id: Type.Integer(),
  timestamp: Type.String(),
  text: Type.String(),
  enabled: Type.Boolean(),
});

export const Ban = Type.Object({
  md5hash: Type.String({ description: 'lowercase' }),
  text: Type.String(),
  enabled: Type.Boolean(),
  username: Type.String({ description: 'who created the ban' }),
  user_id: Type.Integer(),
  timestamp: Type.String({ description: 'creation time, "YYYY-MM-DD HH:MM:SS.ffffff+00:00"' }),
  audit: Type.Array(BanAuditEntry, { description: 'one entry per change, oldest first' }),
  block_count: Type.Integer({ description: 'processes blocked by this ban, as sensors reported them' }),
  last_block_time: NullableTimestamp,
  last_block_sensor_id: Type.Union([Type.Integer(), Type.Null()]),
  last_block_hostname: Type.Union([Type.String(), Type.Null()]),
  ban_count: Type.Integer({ description: 'the same as block_count, under the name clients send' }),
  last_ban_time: NullableTimestamp,
  last_ban_host: Type.Union([Type.String(), Type.Null()]),
});
export type Ban = Static<typeof Ban>;

export const BanParams = Type.Object({ md5: Md5 });

export const BanCreateBody = Type.Object({
  md5hash: Md5,
  text: Type.Optional(NullableText),
  enabled: Type.Optional(Flag),
  last_ban_time: Ignored,
  ban_count: Ignored,
  last_ban_host: Ignored,
});
export type BanCreateBody = Static<typeof BanCreateBody>;

/** cbapi PUTs the whole record as read; only text and enabled are writable. */
export const BanUpdateBody = Type.Object({
  text: Type.Optional(NullableText),
  enabled: Type.Optional(Flag),
});
export type BanUpdateBody = Static<typeof BanUpdateBody>;

/** An optional reason, which replaces the ban's text (cbapi: "disabling a hash also removes the text"). */
export const BanDeleteBody = Type.Union([Type.Object({ text: Type.Optional(NullableText) }), Type.Null()]);
export type BanDeleteBody = Static<typeof BanDeleteBody>;

export const BanListQuery = Type.Object({
  count: Type.Integer({ minimum: 0, maximum: 100_000, default: 500, description: 'page size (cbapi sends 10000)' }),
  start: Type.Integer({ minimum: 0, default: 0 }),
  sort_col: Type.Union(BAN_SORT_COLUMNS.map((column) => Type.Literal(column)), { default: 'timestamp' }),
  order_asc: Type.Boolean({ default: false, description: 'false: newest (or highest) first' }),
  filter: Type.Optional(Type.String({
    maxLength: 1024,
    description: 'clauses joined by &&, each md5hash==<md5> or enabled==true|false',
    examples: ['md5hash==0ea59cf80ef9703b3d92ca6b25426456 && enabled==true'],
  })),
});
export type BanListQuery = Static<typeof BanListQuery>;

/** The payload of a `ban_list` instruction. */
export const BanListPayload = Type.Object({
  version: Type.Integer({ minimum: 0, description: 'the version the sensor holds once it applied this; 0 is the empty list' }),
  added: Type.Array(Type.Object({ md5: Type.String() })),
  removed: Type.Array(Type.String()),
  full: Type.Boolean({ description: 'true: `added` is the whole list, replacing what the sensor holds' }),
});
export type BanListPayload = Static<typeof BanListPayload>;
