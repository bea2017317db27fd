/** Server information (reference core §2.4). Any authenticated user. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InfoService } from './info.service.js';
import { ServerInfo } from './info.schemas.js';

export const infoRoutes: FastifyPluginAsyncTypebox<{ info: InfoService }> = async (app, { info }) => {
  app.get('/api/info', {
    schema: { tags: ['info'], summary: 'Server version and feature switches', response: { 200: ServerInfo } },
  }, () => info.info());
};
