/** Storage partitions (reference admin §5). Any authenticated user may list them. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PartitionsService } from './partitions.service.js';
import { PartitionList } from './partitions.schemas.js';

export const partitionsRoutes: FastifyPluginAsyncTypebox<{ partitions: PartitionsService }> = async (app, { partitions }) => {
  app.get('/api/v1/storage/events/partition', {
    schema: { tags: ['partitions'], summary: 'Event storage partitions, keyed by name', response: { 200: PartitionList } },
  }, () => partitions.list());
};
