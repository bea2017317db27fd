/** Live response at the paths of reference admin §7.1 (cbapi's cblr_base is /api/v1/cblr). */
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { MULTIPART_ALLOWANCE_BYTES, MULTIPART_LIMITS, multipartFile, refuseDeclaredOver } from '../../http/uploads.js';
import { bytesReply } from '../../http/schemas.js';
import type { LiveResponseService } from './live-response.service.js';
import {
  Command, CommandCreateBody, CommandParams, CommandQuery, FileParams, Session, SessionCreateBody, SessionFile,
  SessionListQuery, SessionParams, SessionUpdateBody,
} from './live-response.schemas.js';

const SESSION = '/api/v1/cblr/session';

export const liveResponseRoutes: FastifyPluginAsyncTypebox<{ liveResponse: LiveResponseService; fileLimitBytes: number }> = async (
  app, { liveResponse, fileLimitBytes },
) => {
  const tags = ['live response'];
  // One byte over the limit lets the content store see the excess and refuse it (413), rather
  // than keep a silently truncated file.
  await app.register(multipart, { limits: { ...MULTIPART_LIMITS, fileSize: fileLimitBytes + 1 } });

  app.get(SESSION, {
    schema: { tags, summary: 'List sessions, or only the pending and active ones', querystring: SessionListQuery, response: { 200: Type.Array(Session) } },
  }, (request) => liveResponse.list(request.principal, request.query.active_only));

  app.post(SESSION, {
    schema: {
      tags, summary: 'Open a session on a sensor (pending until the sensor attaches at a check-in); the sensor\'s open session if it has one',
      body: SessionCreateBody, response: { 200: Session },
    },
  }, (request) => liveResponse.create(request.principal, request.body.sensor_id));

  app.get(`${SESSION}/:session_id`, {
    schema: { tags, summary: 'Read a session (404 once it timed out)', params: SessionParams, response: { 200: Session } },
  }, (request) => liveResponse.get(request.principal, request.params.session_id));

  app.put(`${SESSION}/:session_id`, {
    schema: {
      tags, summary: 'Close a session: PUT it with status "close"', params: SessionParams, body: SessionUpdateBody, response: { 200: Session },
    },
  }, (request) => liveResponse.update(request.principal, request.params.session_id, request.body));

  app.get(`${SESSION}/:session_id/keepalive`, {
    schema: { tags, summary: 'Keep an open session from timing out', params: SessionParams, response: { 200: Session } },
  }, (request) => liveResponse.keepalive(request.principal, request.params.session_id));

  app.post(`${SESSION}/:session_id/command`, {
    schema: {
      tags, summary: 'Queue a command for the sensor; it stays pending until the sensor answers',
      params: SessionParams, body: CommandCreateBody, response: { 200: Command },
    },
  }, (request) => liveResponse.createCommand(request.principal, request.params.session_id, request.body));

  app.get(`${SESSION}/:session_id/command`, {
    schema: { tags, summary: 'The session\'s commands', params: SessionParams, response: { 200: Type.Array(Command) } },
  }, (request) => liveResponse.listCommands(request.principal, request.params.session_id));

  app.get(`${SESSION}/:session_id/command/:command_id`, {
    schema: {
      tags, summary: 'Read a command, its result and output; with wait=true, once it has finished or its time is up',
      params: CommandParams, querystring: CommandQuery, response: { 200: Command },
    },
  }, (request) => liveResponse.getCommand(request.principal, request.params.session_id, request.params.command_id, request.query.wait));

  app.get(`${SESSION}/:session_id/file`, {
    schema: { tags, summary: 'The session\'s files', params: SessionParams, response: { 200: Type.Array(SessionFile) } },
  }, (request) => liveResponse.listFiles(request.principal, request.params.session_id));

  app.post(`${SESSION}/:session_id/file`, {
    onRequest: refuseDeclaredOver(fileLimitBytes + MULTIPART_ALLOWANCE_BYTES),
    schema: {
      tags, summary: 'Upload a file (multipart field "file") for a put file command', consumes: ['multipart/form-data'],
      params: SessionParams, response: { 200: SessionFile },
    },
  }, async (request) => {
    const { filename, content } = await multipartFile(request, 'file');
    return liveResponse.uploadFile(request.principal, request.params.session_id, filename, content);
  });

  app.get(`${SESSION}/:session_id/file/:file_id`, {
    schema: { tags, summary: 'A file\'s details', params: FileParams, response: { 200: SessionFile } },
  }, (request) => liveResponse.getFile(request.principal, request.params.session_id, request.params.file_id));

  app.get(`${SESSION}/:session_id/file/:file_id/content`, {
    schema: {
      tags, summary: 'A file\'s content (404 until it has arrived)', params: FileParams,
      response: { 200: bytesReply('application/octet-stream', 'the file as it was fetched or uploaded') },
    },
  }, async (request, reply) => {
    const { stream, size } = await liveResponse.fileContent(request.principal, request.params.session_id, request.params.file_id);
    return reply.type('application/octet-stream').header('content-length', size).send(stream);
  });
};
