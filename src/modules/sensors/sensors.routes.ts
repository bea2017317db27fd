/**
 * The analyst side of sensors (reference core §6.1): reading them, requesting isolation, restart,
 * uninstall or a group move, statistics, and the enrolment and ingest routes Vigil adds.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { jsonArrayStream, StreamedArray } from '../../http/json-array-stream.js';
import { IntegerId } from '../../http/schemas.js';
import {
  NoContent,
  Sensor,
  SensorListQuery,
  SensorParams,
  SensorSearchQuery,
  SensorSearchReply,
  SensorStatistics,
  SensorUpdateBody,
} from './sensors.schemas.js';
import type { SensorsService } from './sensors.service.js';

const Counters = Type.Record(Type.String(), Type.Integer(), {
  description: 'batches_accepted, batches_duplicate, batches_rejected.<reason>, events_accepted, events_filtered, events_rejected.<reason>, sequence_gaps, sequences_missing',
});

export const sensorsRoutes: FastifyPluginAsyncTypebox<{ sensors: SensorsService }> = async (app, { sensors }) => {
  const tags = ['sensors'];

  app.get('/api/v1/sensor', {
    schema: {
      tags, summary: 'Every sensor the caller can see that the filters cover, unpaged, by id',
      querystring: SensorListQuery, response: { 200: StreamedArray(Sensor) },
    },
  }, async (request, reply) => reply.type('application/json').send(await jsonArrayStream(sensors.listPages(request.principal, request.query))));

  app.get('/api/v2/sensor', {
    schema: {
      tags, summary: 'One page of the sensors the caller can see, in a total order (ties broken by id)',
      querystring: SensorSearchQuery, response: { 200: SensorSearchReply },
    },
  }, (request) => sensors.search(request.principal, request.query));

  app.get('/api/v1/sensor/statistics', {
    schema: { tags, summary: 'How many sensors the caller can see, and how many were seen in the last 24 hours', response: { 200: SensorStatistics } },
  }, (request) => sensors.statistics(request.principal));

  app.get('/api/v1/sensor/:id', {
    schema: { tags, summary: 'One sensor', params: SensorParams, response: { 200: Sensor } },
  }, (request) => sensors.get(request.principal, request.params.id));

  app.put('/api/v1/sensor/:id', {
    schema: {
      tags,
      summary: 'Request isolation (network_isolation_enabled), a restart, an uninstall or a group move, or set notes (group administrators). '
        + 'The sensor carries requests out at its next check-in; is_isolating follows once it confirms.',
      params: SensorParams, body: SensorUpdateBody, response: { 204: NoContent },
    },
  }, async (request, reply) => {
    await sensors.update(request.principal, request.params.id, request.body);
    return reply.code(204).send(null);
  });

  for (const diagnostics of ['queued', 'activity', 'resourcestatus']) {
    app.get(`/api/v1/sensor/:id/${diagnostics}`, {
      schema: {
        tags, summary: `The sensor's ${diagnostics} diagnostics: always empty, as Vigil sensors stream and keep no backlog`,
        params: SensorParams, response: { 200: Type.Array(Type.Object({})) },
      },
    }, (request) => sensors.diagnostics(request.principal, request.params.id));
  }

  app.get('/api/v1/group/:id/install_code', {
    schema: {
      tags, summary: 'The install code sensors present to register into this group (group administrators)',
      params: Type.Object({ id: IntegerId }),
      response: { 200: Type.Object({ group_id: Type.Integer(), install_code: Type.String() }) },
    },
  }, (request) => sensors.installCode(request.principal, request.params.id));

  app.get('/api/v1/sensor/:id/ingest', {
    schema: { tags, summary: 'What this sensor\'s uploads came to, by outcome and reason', params: SensorParams, response: { 200: Counters } },
  }, (request) => sensors.ingestCounters(request.principal, request.params.id));

  app.get('/api/v1/ingest/stats', {
    schema: { tags, summary: 'Ingest counters summed over all sensors (global admin)', response: { 200: Counters } },
  }, (request) => sensors.ingestCounters(request.principal));
};
