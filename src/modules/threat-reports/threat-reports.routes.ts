/** Threat report search and bulk update (reference admin §4.5), and one report under its feed (§4.1). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { RecordSearchQuerystring } from '../../http/record-search.schemas.js';
import { ResultSuccess } from '../../http/schemas.js';
import { ThreatReport, ThreatReportParams, ThreatReportSearchReply, ThreatReportUpdateBody } from './threat-reports.schemas.js';
import type { ThreatReportsService } from './threat-reports.service.js';

export const threatReportsRoutes: FastifyPluginAsyncTypebox<{ threatReports: ThreatReportsService }> = async (app, { threatReports }) => {
  const tags = ['threat reports'];

  app.get('/api/v1/threat_report', {
    schema: {
      tags,
      summary: 'Search threat reports: q over title, description, tags, feed_name, md5, domain, ipaddr, is_ignored …; '
        + 'rows (default 10), start, sort (default severity_score desc), facets',
      querystring: RecordSearchQuerystring, response: { 200: ThreatReportSearchReply },
    },
  }, (request) => threatReports.search(request.principal, request.query));

  app.post('/api/v1/threat_report', {
    schema: {
      tags,
      summary: 'Set is_ignored on reports by ids or by query (global admin). One report by id answers the report; otherwise {"result": "success"}.',
      body: ThreatReportUpdateBody, response: { 200: Type.Union([ThreatReport, ResultSuccess]) },
    },
  }, (request) => threatReports.update(request.principal, request.body));

  app.get('/api/v1/feed/:id/report/:report_id', {
    schema: { tags, summary: 'One report of a feed', params: ThreatReportParams, response: { 200: ThreatReport } },
  }, (request) => threatReports.get(request.principal, request.params.id, request.params.report_id));
};
