/**
 * The sensor side of live-response files (docs/sensor-protocol.md): a sensor uploads what a get
 * file command fetched, raw, before it acknowledges the command, and downloads what a put file
 * command sends. Sensors authenticate as on every sensor-protocol call (src/http/auth.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Readable } from 'node:stream';
import { bytesReply, IntegerId } from '../../http/schemas.js';
import { refuseDeclaredOver } from '../../http/uploads.js';
import type { FileTransfers } from './file-transfers.js';

const FILE = '/sensor/v1/live-response/files/:file_id';
const FileParams = Type.Object({ file_id: IntegerId });

export const liveResponseSensorRoutes: FastifyPluginAsyncTypebox<{ transfers: FileTransfers; fileLimitBytes: number }> = async (
  app, { transfers, fileLimitBytes },
) => {
  const tags = ['sensor protocol'];
  const security = [{ sensorSecret: [] }];

  // The content streams to disk as it comes: a fetched file may be a memory dump.
  app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));

  app.put(FILE, {
    onRequest: refuseDeclaredOver(fileLimitBytes),
    schema: {
      tags, security, summary: 'Upload the content a get file command fetched (application/octet-stream), then acknowledge the command',
      consumes: ['application/octet-stream'], params: FileParams,
      response: { 200: Type.Object({ file_id: Type.Integer(), size: Type.Integer() }) },
    },
  }, (request) => transfers.receive(request.sensor, request.params.file_id, request.body as Readable));

  app.get(FILE, {
    schema: {
      tags, security, summary: 'Download the content a put file command sends', params: FileParams,
      response: { 200: bytesReply('application/octet-stream', 'the file an analyst uploaded to the session') },
    },
  }, async (request, reply) => {
    const { stream, size } = await transfers.send(request.sensor, request.params.file_id);
    return reply.type('application/octet-stream').header('content-length', size).send(stream);
  });
};
