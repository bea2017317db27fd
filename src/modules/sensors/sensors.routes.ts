/** The analyst side of sensor enrolment and ingestion: install codes and ingest counters. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';
import type { SensorsService } from './sensors.service.js';

const Counters = Type.Record(Type.String(), Type.Integer(), {
  description: 'batches_accepted, batches_duplicate, batches_rejected.<reason>, events_accepted, events_filtered, events_rejected.<reason>, sequence_gaps, sequences_missing',
});

export const sensorsRoutes: FastifyPluginAsyncTypebox<{ sensors: SensorsService }> = async (app, { sensors }) => {
  const tags = ['sensors'];

  app.get('/api/v1/group/:id/install_code', {
    schema: {
      tags, summary: 'The install code sensors present to register into this group (group administrators)',
      params: Type.Object({ id: IntegerId }),
      response: { 200: Type.Object({ group_id: Type.Integer(), install_code: Type.String() }) },
    },
  }, (request) => sensors.installCode(request.principal, request.params.id));

  app.get('/api/v1/sensor/:id/ingest', {
    schema: { tags, summary: 'What this sensor\'s uploads came to, by outcome and reason', params: Type.Object({ id: IntegerId }), response: { 200: Counters } },
  }, (request) => sensors.ingestCounters(request.principal, request.params.id));

  app.get('/api/v1/ingest/stats', {
    schema: { tags, summary: 'Ingest counters summed over all sensors (global admin)', response: { 200: Counters } },
  }, (request) => sensors.ingestCounters(request.principal));
};
