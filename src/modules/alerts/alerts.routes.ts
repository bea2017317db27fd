/** Alert search and triage, at the paths of reference admin §3.1. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RecordSearchBody, RecordSearchQuerystring } from '../../http/record-search.schemas.js';
import { ResultSuccess } from '../../http/schemas.js';
import { Alert, AlertBulkBody, AlertParams, AlertSearchReply, AlertUpdateBody } from './alerts.schemas.js';
import type { AlertsService } from './alerts.service.js';

const SEARCH_SUMMARY = 'Search alerts: q over status, hostname, watchlist_name, feed_name, alert_severity, created_time …; '
  + 'cb.fq.<field> filters (cbapi reads one alert with cb.fq.unique_id); rows (default 10, at most 10,000), start, '
  + 'sort (default created_time desc), facets';

export const alertsRoutes: FastifyPluginAsyncTypebox<{ alerts: AlertsService }> = async (app, { alerts }) => {
  const tags = ['alerts'];

  for (const version of ['v1', 'v2']) {
    app.get(`/api/${version}/alert`, {
      schema: { tags, summary: SEARCH_SUMMARY, querystring: RecordSearchQuerystring, response: { 200: AlertSearchReply } },
    }, (request) => alerts.search(request.principal, request.query));
  }

  app.post('/api/v2/alert', {
    schema: {
      tags, summary: 'The same search with the parameters in a JSON body, whose values may be lists ({"q": ["…"], "rows": 10})',
      body: RecordSearchBody, response: { 200: AlertSearchReply },
    },
  }, (request) => alerts.search(request.principal, request.body ?? {}));

  app.post('/api/v1/alert/:unique_id', {
    schema: {
      tags, summary: 'Change one alert\'s status and/or assignee (global admin); answers the alert',
      params: AlertParams, body: AlertUpdateBody, response: { 200: Alert },
    },
  }, (request) => alerts.update(request.principal, request.params.unique_id, request.body));

  app.post('/api/v1/alerts', {
    schema: {
      tags,
      summary: 'Change many alerts in one operation (global admin): by alert_ids or by query; requested_status, assigned_to, '
        + 'set_ignored (their reports raise no more alerts)',
      body: AlertBulkBody, response: { 200: ResultSuccess },
    },
  }, (request) => alerts.bulkUpdate(request.principal, request.body));
};
