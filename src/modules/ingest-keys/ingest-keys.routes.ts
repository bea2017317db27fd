/** Ingest keys of a sensor group, for its administrators (a Vigil resource; docs/sysmon.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { IngestKeysService } from './ingest-keys.service.js';
import { CreatedIngestKey, GroupKeyParams, GroupKeysParams, IngestKey, IngestKeyCreateBody } from './ingest-keys.schemas.js';

export const ingestKeysRoutes: FastifyPluginAsyncTypebox<{ ingestKeys: IngestKeysService }> = async (app, { ingestKeys }) => {
  const tags = ['ingest keys'];

  app.post('/api/v1/group/:id/ingest_key', {
    schema: {
      tags, summary: 'Create a key shippers present to send Sysmon events into this group (group administrators); the key is shown once',
      params: GroupKeysParams, body: Type.Optional(IngestKeyCreateBody), response: { 200: CreatedIngestKey },
    },
  }, (request) => ingestKeys.create(request.principal, request.params.id, request.body ?? {}));

  app.get('/api/v1/group/:id/ingest_key', {
    schema: {
      tags, summary: 'The group\'s ingest keys, revoked ones included, without the keys themselves (group administrators)',
      params: GroupKeysParams, response: { 200: Type.Array(IngestKey) },
    },
  }, (request) => ingestKeys.list(request.principal, request.params.id));

  app.delete('/api/v1/group/:id/ingest_key/:keyId', {
    schema: {
      tags, summary: 'Revoke an ingest key: shippers using it are refused from now on (group administrators)',
      params: GroupKeyParams, response: { 200: Type.Object({ result: Type.Literal('success') }) },
    },
  }, (request) => ingestKeys.revoke(request.principal, request.params.id, request.params.keyId));
};
