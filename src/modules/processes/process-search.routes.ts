/**
 * Process search at the paths clients use (reference core §3.1): GET with a query string, POST
 * with the same parameters as a JSON body (longer queries; the legacy client always POSTs), at v1
 * and at v2.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ProcessSearchParams, ProcessSearchReply, type SearchParams } from './process-search.schemas.js';
import type { ProcessSearchService } from './process-search.service.js';

export const processSearchRoutes: FastifyPluginAsyncTypebox<{ processSearch: ProcessSearchService }> = async (app, { processSearch }) => {
  const tags = ['processes'];
  for (const version of ['v1', 'v2']) {
    app.get(`/api/${version}/process`, {
      schema: {
        tags, summary: 'Search process segments (one document per segment, or per process with cb.group=id)',
        querystring: ProcessSearchParams, response: { 200: ProcessSearchReply },
      },
    }, (request) => processSearch.search(request.principal, request.query as SearchParams));

    app.post(`/api/${version}/process`, {
      schema: {
        tags, summary: 'The same search with its parameters in a JSON body (scalars or lists)',
        body: ProcessSearchParams, response: { 200: ProcessSearchReply },
      },
    }, (request) => processSearch.search(request.principal, { ...(request.query as SearchParams), ...(request.body as SearchParams) }));
  }
};
