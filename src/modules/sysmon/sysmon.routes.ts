/**
 * Sysmon ingest for shippers (docs/sysmon.md), outside /api and /sensor: these routes take a
 * group's ingest key and nothing else (policy `ingest`, src/http/auth.ts). Bodies are read raw,
 * since they may be gzip and are not one JSON document.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { IngestRejection } from '../../ingest/rejection.js';
import { SysmonIngestReply } from './sysmon-ingest.schemas.js';
import type { SysmonIngestService } from './sysmon-ingest.service.js';

export interface SysmonRoutesOptions {
  sysmon: SysmonIngestService;
  bodyLimitBytes: number;
}

const BatchHeaders = Type.Object({
  'x-vigil-batch': Type.Optional(Type.String({
    pattern: '^[A-Za-z0-9._:-]{1,128}$',
    description: 'The sender\'s name for this exact batch (vigil import sends a digest of file and position); a name stored before stores nothing again',
  })),
});

/** Bodies of this scope are taken raw, whatever their type; one over the limit is refused by name. */
export function readRawBodies(app: FastifyInstance, bodyLimitBytes: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  // A body over the limit as sent is the same refusal as one too large once decompressed.
  app.setErrorHandler(async (error: FastifyError) => {
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') throw new IngestRejection('batch_too_large', `The body is more than ${bodyLimitBytes} bytes`);
    throw error;
  });
}

export const sysmonRoutes: FastifyPluginAsyncTypebox<SysmonRoutesOptions> = async (app, { sysmon, bodyLimitBytes }) => {
  const tags = ['sysmon ingest'];
  const security = [{ ingestKey: [] }];
  readRawBodies(app, bodyLimitBytes);

  app.post('/ingest/v1/sysmon', {
    config: { auth: 'ingest' },
    bodyLimit: bodyLimitBytes,
    schema: {
      tags, security, headers: BatchHeaders,
      summary: 'Sysmon events as JSON lines (gzip allowed): the flat Windows-event form of NXLog, Fluent Bit and Vector, or Linux syslog lines whose message is the event XML',
      consumes: ['application/x-ndjson', 'application/json', 'text/plain'],
      response: { 200: SysmonIngestReply },
    },
  }, (request) => sysmon.ingestLines(request.ingestKey, (request.body as Buffer | undefined) ?? Buffer.alloc(0),
    request.headers['content-encoding'], request.headers['x-vigil-batch']));
};
