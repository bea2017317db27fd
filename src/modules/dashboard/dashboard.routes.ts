/** Dashboard statistics (reference admin §9.3; cbapi's CbResponseAPI.dashboard_statistics()). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DashboardService } from './dashboard.service.js';
import { DashboardStatistics } from './dashboard.schemas.js';

export const dashboardRoutes: FastifyPluginAsyncTypebox<{ dashboard: DashboardService }> = async (app, { dashboard }) => {
  app.get('/api/v1/dashboard/statistics', {
    schema: {
      tags: ['dashboard'],
      summary: 'Counts of sensors, processes, binaries, alerts and recent watchlist hits the caller can see (Vigil\'s keys; Carbon Black\'s were not recorded)',
      response: { 200: DashboardStatistics },
    },
  }, (request) => dashboard.statistics(request.principal));
};
