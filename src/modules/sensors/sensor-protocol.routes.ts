/**
 * The sensor protocol (docs/sensor-protocol.md) under /sensor/v1. Sensors authenticate with their
 * own id and secret, never with analysts' API tokens (src/http/auth.ts checks them for every route
 * under /sensor); registration is the one call without them (it presents a group's install code
 * instead, which the service checks).
 */
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { IngestPipeline } from '../../ingest/pipeline.js';
import { DomainError } from '../../domain/errors.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { EventsReply } from '../../ingest/event.schemas.js';
import { IngestRejection } from '../../ingest/rejection.js';
import type { BinariesService } from '../binaries/binaries.service.js';
import { readBinaryUploadBody, type StagedContent } from '../binaries/binary-upload-body.js';
import { BinaryUpload } from '../binaries/binary-upload.schemas.js';
import {
  CheckinBody,
  CheckinReply,
  RegisterBody,
  RegisterReply,
} from './sensor-protocol.schemas.js';
import type { SensorsService } from './sensors.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set for every request to a `sensor` route that got past sensor authentication (src/http/auth.ts). */
    sensor: SensorIdentity;
  }
}

export interface SensorProtocolOptions {
  sensors: SensorsService;
  ingest: IngestPipeline;
  binaries: BinariesService;
  limits: { eventUploadBytes: number; binaryUploadBytes: number };
}

/** An upload's metadata, icon (1 MB of base64 at most) included, without its content. */
const BINARY_METADATA_LIMIT_BYTES = 2 * 1024 * 1024;
const Md5Params = Type.Object({ md5: Type.String({ pattern: '^[0-9a-fA-F]{32}$' }) });

export const sensorProtocolRoutes: FastifyPluginAsyncTypebox<SensorProtocolOptions> = async (app, options) => {
  const { sensors, ingest, binaries, limits } = options;
  const tags = ['sensor protocol'];
  const security = [{ sensorSecret: [] }];

  app.post('/sensor/v1/register', {
    config: { auth: 'public' },
    schema: { tags, summary: 'Register a sensor with a group\'s install code', security: [], body: RegisterBody, response: { 200: RegisterReply } },
  }, (request) => sensors.register(request.body));

  app.post('/sensor/v1/checkin', {
    schema: { tags, security, summary: 'Report state, acknowledge instructions, receive pending ones', body: CheckinBody, response: { 200: CheckinReply } },
  }, (request) => sensors.checkin(request.sensor, request.body));

  // Binary uploads stream: the content is decoded to a staging file and hashed as it arrives
  // (binary-upload-body.ts); the staged file is dropped unless the upload adopted it.
  await app.register(async (uploads) => {
    const staging = new WeakMap<FastifyRequest, { path: string; content?: StagedContent }>();
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('application/json', async (request: FastifyRequest, payload: Readable) => {
      if (Number(request.headers['content-length']) > limits.binaryUploadBytes) {
        throw new DomainError('payload_too_large', `The body is more than ${limits.binaryUploadBytes} bytes`);
      }
      const stage: { path: string; content?: StagedContent } = { path: await binaries.stagingPath() };
      staging.set(request, stage);
      const { body, staged } = await readBinaryUploadBody(payload, stage.path, {
        bodyBytes: limits.binaryUploadBytes, otherBytes: BINARY_METADATA_LIMIT_BYTES,
      });
      if (staged) stage.content = staged;
      return body;
    });
    const discard = async (request: FastifyRequest) => {
      const stage = staging.get(request);
      if (stage) await binaries.discardStaged(stage.path);
    };
    // onSend, before the answer leaves, so a sensor told "refused" finds nothing of it kept.
    uploads.addHook('onSend', async (request) => discard(request));
    uploads.addHook('onRequestAbort', discard);
    uploads.withTypeProvider<TypeBoxTypeProvider>().post('/sensor/v1/binaries', {
      schema: {
        tags, security, summary: 'Upload a binary\'s metadata and (base64) content, verified against its hashes',
        body: BinaryUpload, response: { 200: Type.Object({ md5: Type.String(), stored: Type.Boolean() }) },
      },
    }, (request) => binaries.upload(request.sensor, request.body.metadata, staging.get(request)?.content));
  });

  app.get('/sensor/v1/binaries/:md5', {
    schema: {
      tags, security, summary: 'Whether the server holds a binary\'s content (404 if not)',
      params: Md5Params, response: { 200: Type.Object({ md5: Type.String() }) },
    },
  }, async (request, reply) => {
    const md5 = request.params.md5.toLowerCase();
    if (await binaries.hasContent(md5)) return { md5 };
    return reply.callNotFound();
  });

  // Event uploads are read raw: the body may be gzip, and every way it can be refused is counted.
  await app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    // Fastify refuses some bodies before the pipeline reads them; those refusals are counted too
    // (the app's error handler then sends them). A body over the limit as sent is the same refusal
    // as one too large once decompressed, so it is answered the same way; an empty Content-Type
    // keeps Fastify's 415. Authentication ran first, so the sensor is known.
    uploads.setErrorHandler(async (error: FastifyError, request) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        await ingest.countRejectedBatch(request.sensor.id, 'batch_too_large');
        throw new IngestRejection('batch_too_large', `The body is more than ${limits.eventUploadBytes} bytes`);
      }
      if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') await ingest.countRejectedBatch(request.sensor.id, 'unsupported_media_type');
      throw error;
    });
    // No body at all is an empty one: the pipeline refuses it as malformed JSON and counts it.
    uploads.post('/sensor/v1/events', {
      bodyLimit: limits.eventUploadBytes,
      schema: {
        tags, security, summary: 'Upload a batch of events (JSON, optionally gzip); answered once durably committed',
        consumes: ['application/json'], response: { 200: EventsReply },
      },
    }, (request) => ingest.upload(request.sensor, (request.body as Buffer | undefined) ?? Buffer.alloc(0), request.headers['content-encoding']));
  });
};
