/**
 * Storage partitions at cbapi's paths (reference admin §5.1). The POSTs carry the literal body
 * `null`, which json-body.ts accepts. DELETE also answers at …/partition/{name}, the path some
 * documentation gives. GET …/forecast is Vigil's own (no Carbon Black server had it).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ResultSuccess } from '../../http/schemas.js';
import type { PartitionsService } from './partitions.service.js';
import { PartitionList, PartitionParams, StorageForecast } from './partitions.schemas.js';

export const partitionsRoutes: FastifyPluginAsyncTypebox<{ partitions: PartitionsService }> = async (app, { partitions }) => {
  const tags = ['partitions'];

  app.get('/api/v1/storage/events/partition', {
    schema: { tags, summary: 'Event storage partitions, keyed by name', response: { 200: PartitionList } },
  }, (request) => partitions.list(request.principal));

  app.get('/api/v1/storage/events/forecast', {
    schema: {
      tags, summary: 'Vigil: how fast the event store grows and the days until the disk\'s free space is used at that pace',
      response: { 200: StorageForecast },
    },
  }, (request) => partitions.forecast(request.principal));

  app.post('/api/v1/storage/events/new_partition', {
    schema: { tags, summary: 'Roll the hot partition over to a warm one and start a new hot partition', response: { 200: ResultSuccess } },
  }, (request) => partitions.create(request.principal));

  app.post('/api/v1/storage/events/:name/mount', {
    schema: { tags, summary: 'Mount a partition: its events are searched again', params: PartitionParams, response: { 200: ResultSuccess } },
  }, (request) => partitions.mount(request.principal, request.params.name, true));

  app.post('/api/v1/storage/events/:name/unmount', {
    schema: {
      tags, summary: 'Unmount a partition: its events are kept but not searched', params: PartitionParams, response: { 200: ResultSuccess },
    },
  }, (request) => partitions.mount(request.principal, request.params.name, false));

  for (const path of ['/api/v1/storage/events/:name', '/api/v1/storage/events/partition/:name']) {
    app.delete(path, {
      schema: { tags, summary: 'Delete a partition and its events (not the hot one)', params: PartitionParams, response: { 200: ResultSuccess } },
    }, (request) => partitions.delete(request.principal, request.params.name));
  }
};
