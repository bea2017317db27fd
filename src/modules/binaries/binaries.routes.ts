/**
 * A binary's summary, content and icon, at the paths of reference core §5.1. Binary search
 * (GET/POST /api/v1/binary) comes with the query engine.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { BinariesService } from './binaries.service.js';
import { bytesReply } from '../../http/schemas.js';
import { BinarySummary, Md5Params } from './binaries.schemas.js';

export const binariesRoutes: FastifyPluginAsyncTypebox<{ binaries: BinariesService }> = async (app, { binaries }) => {
  const tags = ['binaries'];

  app.get('/api/v1/binary/:md5/summary', {
    schema: { tags, summary: 'A binary\'s document: version info, signature, where it was seen', params: Md5Params, response: { 200: BinarySummary } },
  }, (request) => binaries.summary(request.principal, request.params.md5));

  // As the real server: application/zip and no Content-Disposition (reference core §5.4).
  app.get('/api/v1/binary/:md5', {
    schema: {
      tags, summary: 'The binary\'s content as a zip holding `filedata` and `metadata`; 404 while the content was not uploaded',
      params: Md5Params, response: { 200: bytesReply('application/zip', 'zip with members filedata and metadata') },
    },
  }, async (request, reply) => reply.type('application/zip').send(await binaries.download(request.principal, request.params.md5)));

  app.get('/api/v1/binary/:md5/icon', {
    schema: {
      tags, summary: 'The binary\'s icon as the sensor sent it, or a default application icon when it sent none',
      params: Md5Params, response: { 200: bytesReply('image/png', 'PNG image') },
    },
  }, async (request, reply) => reply.type('image/png').send(await binaries.icon(request.principal, request.params.md5)));
};
