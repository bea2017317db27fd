/** Ingest keys on the wire (a Vigil resource: Carbon Black has none). */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

export const GroupKeysParams = Type.Object({ id: IntegerId });
export const GroupKeyParams = Type.Object({ id: IntegerId, keyId: IntegerId });

export const IngestKeyCreateBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200, description: 'What the key is for, e.g. the shipper or site' })),
}, { additionalProperties: false });
export type IngestKeyCreateBody = Static<typeof IngestKeyCreateBody>;

export const IngestKey = Type.Object({
  id: Type.Integer(),
  group_id: Type.Integer(),
  name: Type.String(),
  created_by: Type.String(),
  created: Type.String({ description: 'ISO-8601 UTC' }),
  revoked: Type.Union([Type.String(), Type.Null()], { description: 'ISO-8601 UTC; null while the key is in use' }),
});
export type IngestKey = Static<typeof IngestKey>;

export const CreatedIngestKey = Type.Intersect([IngestKey, Type.Object({
  key: Type.String({ description: 'The key itself: shown this once, never stored' }),
})]);
export type CreatedIngestKey = Static<typeof CreatedIngestKey>;
