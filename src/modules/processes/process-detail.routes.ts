/**
 * One process's routes (reference core §4.1): summaries, the segment list, events in the v1–v4
 * formats, the preview, threat-intelligence hits and binary frequency. Process search
 * (/api/v1/process) lives in process-search.routes.ts.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from '@sinclair/typebox';
import { bytesReply } from '../../http/schemas.js';
import { EVENT_API_VERSIONS } from './event-formats/index.js';
import {
  EventsQuery, eventsReply, HostCount, HostCountQuery, PreviewQuery, previewReply, ProcessParams, SegmentList, SegmentParams,
  SummaryQuery, SummaryV1, SummaryV2,
} from './process-detail.schemas.js';
import type { ProcessDetailService } from './process-detail.service.js';

/** JSON the service has already encoded (the events responses): sent as it is, not serialized again. */
function sendJson(reply: FastifyReply, body: Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

export const processDetailRoutes: FastifyPluginAsyncTypebox<{ processes: ProcessDetailService }> = async (app, { processes }) => {
  const tags = ['processes'];

  app.get('/api/v1/process/host/count', {
    schema: {
      tags, summary: 'How many sensors ran a process from this binary, of how many, in how many process segments',
      querystring: HostCountQuery, response: { 200: HostCount },
    },
  }, (request) => processes.hostCount(request.principal, request.query.md5));

  app.get('/api/v1/process/:id/segment', {
    schema: { tags, summary: 'The segments of a process, oldest first', params: ProcessParams, response: { 200: SegmentList } },
  }, (request) => processes.segmentList(request.principal, request.params.id));

  app.get('/api/v1/process/:id/:segment', {
    schema: {
      tags, summary: 'A process segment\'s summary: the process, its parent, children and siblings',
      params: SegmentParams, querystring: SummaryQuery, response: { 200: SummaryV1 },
    },
  }, ({ principal, params, query }) => processes.summary(principal, params.id, params.segment, query.children));

  // The 5.0 server's form without a segment: all of them.
  app.get('/api/v1/process/:id', {
    schema: {
      tags, summary: 'The summary of a whole process (segment 0)', params: ProcessParams, querystring: SummaryQuery, response: { 200: SummaryV1 },
    },
  }, ({ principal, params, query }) => processes.summary(principal, params.id, '0', query.children));

  app.get('/api/v2/process/:id/:segment', {
    schema: {
      tags, summary: 'A process segment\'s document, with its parent, children and siblings beside its fields',
      params: SegmentParams, querystring: SummaryQuery, response: { 200: SummaryV2 },
    },
  }, ({ principal, params, query }) => processes.flatSummary(principal, params.id, params.segment, query.children));

  for (const version of EVENT_API_VERSIONS) {
    app.get(`/api/v${version}/process/:id/:segment/event`, {
      schema: {
        tags, summary: `A process segment's events in the v${version} formats, in time order (segment 0: all segments merged)`,
        params: SegmentParams, querystring: EventsQuery, response: { 200: eventsReply(version) },
      },
    }, async ({ principal, params, query }, reply) => sendJson(reply, await processes.events(principal, version, params.id, params.segment, query)));
  }

  // The 5.0 server's odd aliases for a whole process's events.
  for (const version of [1, 2] as const) {
    app.get(`/api/v${version}/:id/event`, {
      schema: {
        tags, summary: `A whole process's events in the v${version} formats (an alias the 5.0 server had)`,
        params: ProcessParams, querystring: EventsQuery, response: { 200: eventsReply(version) },
      },
    }, async ({ principal, params, query }, reply) => sendJson(reply, await processes.events(principal, version, params.id, '0', query)));
  }

  for (const version of [1, 2] as const) {
    app.get(`/api/v${version}/process/:id/:segment/preview`, {
      schema: {
        tags, summary: 'A process segment\'s document with a few events of each kind, query matches marked PREPREPRE…POSTPOSTPOST',
        params: SegmentParams, querystring: PreviewQuery, response: { 200: previewReply(version) },
      },
    }, ({ principal, params, query }) => processes.preview(principal, version, params.id, params.segment, query.q));
  }

  app.get('/api/v1/process/:id/:segment/report', {
    schema: {
      tags, summary: 'A zip: json/process.json, json/summary.json and CSVs of the file, registry, module and network events',
      params: SegmentParams, response: { 200: bytesReply('application/zip', 'zip report') },
    },
  }, async ({ principal, params }, reply) => reply.type('application/zip').send(await processes.report(principal, params.id, params.segment)));

  app.get('/api/v1/process/:id/:segment/threat_intel_hits', {
    schema: {
      tags, summary: 'Threat-intelligence hits: 409, as Vigil shares no data with Carbon Black\'s threat-intelligence cloud',
      params: SegmentParams, response: { 200: Type.Array(Type.Unknown()) },
    },
  }, ({ principal, params }) => processes.threatIntelHits(principal, params.id, params.segment));
};
