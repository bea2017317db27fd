/**
 * Site throttle rules at /api/throttle (reference admin §9.3; cbapi's ThrottleRule, a SimpleQuery
 * that lists them all and filters by site_id itself). Rules are delivered to the sensors of their
 * site, which enforce them (throttle-delivery.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ResultSuccess } from '../../http/schemas.js';
import type { ThrottleService } from './throttle.service.js';
import { ThrottleCreateBody, ThrottleParams, ThrottleRule, ThrottleUpdateBody } from './throttle.schemas.js';

const DELIVERY = 'Sensors of the site receive the change at their next check-in, as a throttle instruction, and enforce it.';

export const throttleRoutes: FastifyPluginAsyncTypebox<{ throttle: ThrottleService }> = async (app, { throttle }) => {
  const tags = ['sites'];

  app.get('/api/throttle', {
    schema: { tags, summary: 'List site throttle rules', response: { 200: Type.Array(ThrottleRule) } },
  }, () => throttle.list());

  app.post('/api/throttle', {
    schema: {
      tags, summary: 'Create a throttle rule (global admin); answers the rule', description: DELIVERY,
      body: ThrottleCreateBody, response: { 200: ThrottleRule },
    },
  }, (request) => throttle.create(request.principal, request.body));

  app.get('/api/throttle/:id', {
    schema: { tags, summary: 'Read a throttle rule', params: ThrottleParams, response: { 200: ThrottleRule } },
  }, (request) => throttle.get(request.params.id));

  app.put('/api/throttle/:id', {
    schema: {
      tags, summary: 'Change a throttle rule (global admin); answers the rule', description: DELIVERY,
      params: ThrottleParams, body: ThrottleUpdateBody, response: { 200: ThrottleRule },
    },
  }, (request) => throttle.update(request.principal, request.params.id, request.body));

  app.delete('/api/throttle/:id', {
    schema: {
      tags, summary: 'Delete a throttle rule (global admin)', description: DELIVERY,
      params: ThrottleParams, response: { 200: ResultSuccess },
    },
  }, (request) => throttle.delete(request.principal, request.params.id));
};
