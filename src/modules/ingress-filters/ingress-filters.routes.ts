/**
 * Ingress filters, at the paths of reference admin §6.1. Carbon Black served them at
 * /api/v1/ingress_whitelist up to 7.6 (cbapi still uses it); 7.7 renamed the routes to
 * "approvedlist", and /api/v1/ingress_approvedlist is the likely but unverified new path. Both
 * serve the same handlers.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ResultSuccess } from '../../http/schemas.js';
import type { IngressFiltersService } from './ingress-filters.service.js';
import {
  CreatedIds,
  IngressFilter,
  IngressFilterCreateBody,
  IngressFilterParams,
  IngressFilterUpdateBody,
} from './ingress-filters.schemas.js';

const PREFIXES = ['/api/v1/ingress_whitelist', '/api/v1/ingress_approvedlist'];

export const ingressFiltersRoutes: FastifyPluginAsyncTypebox<{ ingressFilters: IngressFiltersService }> = async (
  app,
  { ingressFilters },
) => {
  const tags = ['ingress filters'];

  for (const prefix of PREFIXES) {
    app.get(prefix, {
      schema: { tags, summary: 'List ingress filters, oldest first', response: { 200: Type.Array(IngressFilter) } },
    }, (request) => ingressFilters.list(request.principal));

    app.post(prefix, {
      schema: {
        tags, summary: 'Create ingress filters from an array (cbapi sends one; global admin); answers their ids',
        body: IngressFilterCreateBody, response: { 200: CreatedIds },
      },
    }, (request) => ingressFilters.create(request.principal, request.body));

    app.get(`${prefix}/:id`, {
      schema: { tags, summary: 'Read an ingress filter', params: IngressFilterParams, response: { 200: IngressFilter } },
    }, (request) => ingressFilters.get(request.principal, request.params.id));

    app.put(`${prefix}/:id`, {
      schema: {
        tags, summary: 'Change the fields given (global admin); id and read-only fields are ignored',
        params: IngressFilterParams, body: IngressFilterUpdateBody, response: { 200: ResultSuccess },
      },
    }, (request) => ingressFilters.update(request.principal, request.params.id, request.body));

    app.delete(`${prefix}/:id`, {
      schema: { tags, summary: 'Delete an ingress filter (global admin)', params: IngressFilterParams, response: { 200: ResultSuccess } },
    }, (request) => ingressFilters.delete(request.principal, request.params.id));
  }
};
