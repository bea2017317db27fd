/** Binary search at /api/v1/binary (reference core §5.1): GET with a query string, POST with a JSON body. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { SearchParams } from '../processes/process-search.schemas.js';
import { BinarySearchParams, BinarySearchReply } from './binary-search.schemas.js';
import type { BinarySearchService } from './binary-search.service.js';

export const binarySearchRoutes: FastifyPluginAsyncTypebox<{ binarySearch: BinarySearchService }> = async (app, { binarySearch }) => {
  const tags = ['binaries'];
  app.get('/api/v1/binary', {
    schema: { tags, summary: 'Search binaries by their metadata and where they were seen', querystring: BinarySearchParams, response: { 200: BinarySearchReply } },
  }, (request) => binarySearch.search(request.principal, request.query as SearchParams));

  app.post('/api/v1/binary', {
    schema: { tags, summary: 'The same search with its parameters in a JSON body (scalars or lists)', body: BinarySearchParams, response: { 200: BinarySearchReply } },
  }, (request) => binarySearch.search(request.principal, { ...(request.query as SearchParams), ...(request.body as SearchParams) }));
};
