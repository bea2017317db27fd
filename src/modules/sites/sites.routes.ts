/** Sites, at the paths of reference core §7.1. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CreatedId, ResultSuccess } from '../../http/schemas.js';
import type { SitesService } from './sites.service.js';
import { Site, SiteCreateBody, SiteParams, SiteUpdateBody } from './sites.schemas.js';

export const sitesRoutes: FastifyPluginAsyncTypebox<{ sites: SitesService }> = async (app, { sites }) => {
  const tags = ['sites'];

  app.get('/api/site', {
    schema: { tags, summary: 'List sites with their sensor groups', response: { 200: Type.Array(Site) } },
  }, (request) => sites.list(request.principal));

  app.post('/api/site', {
    schema: { tags, summary: 'Create a site (global admin); answers its id', body: SiteCreateBody, response: { 200: CreatedId } },
  }, (request) => sites.create(request.principal, request.body));

  app.get('/api/site/:id', {
    schema: {
      tags, summary: 'Read a site, as a one-element array',
      params: SiteParams, response: { 200: Type.Array(Site, { minItems: 1, maxItems: 1 }) },
    },
  }, (request) => sites.get(request.principal, request.params.id));

  app.put('/api/site/:id', {
    schema: { tags, summary: 'Rename a site (global admin)', params: SiteParams, body: SiteUpdateBody, response: { 200: ResultSuccess } },
  }, (request) => sites.update(request.principal, request.params.id, request.body));

  app.delete('/api/site/:id', {
    schema: {
      tags, summary: 'Delete a site that holds no sensor groups (global admin); the Default Site (1) stays',
      params: SiteParams, response: { 200: ResultSuccess },
    },
  }, (request) => sites.delete(request.principal, request.params.id));
};
