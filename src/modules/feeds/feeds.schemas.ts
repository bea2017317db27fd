/** Wire shapes of feeds, as reference admin §4.2 recorded them from a real 6.2 server. */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableBoolean = Type.Union([Type.Boolean(), Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const Feed = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'the short name from feedinfo, used in alliance_score_<name>' }),
  display_name: Type.String(),
  feed_url: Type.String(),
  summary: Type.String(),
  tech_data: Type.String(),
  provider_url: Type.String(),
  icon: Type.String({ description: 'base64 image' }),
  icon_small: Type.String(),
  category: NullableString,
  provider_rating: NullableNumber,
  local_rating: NullableNumber,
  enabled: Type.Boolean(),
  use_proxy: NullableBoolean,
  validate_server_cert: NullableBoolean,
  username: NullableString,
  password: Type.Null({ description: 'write-only: never shown' }),
  ssl_client_crt: NullableString,
  ssl_client_key: Type.Null({ description: 'write-only: never shown' }),
  manually_added: Type.Boolean(),
  order: Type.Union([Type.Integer(), Type.Null()]),
  requires: Type.Null(),
  requires_who: Type.Null(),
  requires_what: Type.Null(),
});
export type Feed = Static<typeof Feed>;

export const FeedParams = Type.Object({ id: IntegerId });

/** Schemas of one type each: coercion inside a union would read null as "" or false. */
const OptionalText = Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 65536 }));
const OptionalFlag = Type.Optional(Type.Unsafe<boolean | null>({ type: ['boolean', 'null'] }));

const FeedSettingsInput = {
  feed_url: Type.String({ minLength: 1, maxLength: 4096, description: 'http://, https:// or file:// URL of a cbfeeds JSON file' }),
  enabled: Type.Boolean(),
  use_proxy: OptionalFlag,
  validate_server_cert: OptionalFlag,
  username: OptionalText,
  password: Type.Optional(Type.Unsafe<string | null>({
    type: ['string', 'null'], maxLength: 4096, description: 'null or absent keeps the stored one; "" removes it',
  })),
  ssl_client_crt: OptionalText,
  ssl_client_key: Type.Optional(Type.Unsafe<string | null>({
    type: ['string', 'null'], maxLength: 65536, description: 'null or absent keeps the stored one; "" removes it',
  })),
  local_rating: Type.Optional(Type.Unsafe<number | null>({ type: ['number', 'null'], minimum: 0, maximum: 5 })),
  order: Type.Optional(Type.Unsafe<number | null>({ type: ['integer', 'null'] })),
};

/** What cbapi's feed_operations sends; the rest of the record comes from the downloaded feedinfo. */
export const FeedCreateBody = Type.Object({
  ...FeedSettingsInput,
  enabled: Type.Optional(FeedSettingsInput.enabled),
});
export type FeedCreateBody = Static<typeof FeedCreateBody>;

/** The full record as read, or some fields; the feedinfo fields, id and name are ignored. */
export const FeedUpdateBody = Type.Partial(Type.Object(FeedSettingsInput));
export type FeedUpdateBody = Static<typeof FeedUpdateBody>;

export const SynchronizeBody = Type.Union([
  Type.Object({ full_sync: Type.Optional(Type.Boolean({ description: 'true: every report, and mark the ones gone as deleted' })) }),
  Type.Null(),
]);
export type SynchronizeBody = Static<typeof SynchronizeBody>;
