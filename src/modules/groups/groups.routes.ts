/**
 * Sensor groups, at the paths of reference core §7.1. cbapi has used /api/group, /api/v2/group and
 * (since 1.7.4) /api/v3/group over the years; all three serve the same handlers.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { CreatedId } from '../../http/schemas.js';
import type { GroupsService } from './groups.service.js';
import { EmptyReply, Group, GroupCreateBody, GroupParams, GroupUpdateBody } from './groups.schemas.js';

const PREFIXES = ['/api/group', '/api/v2/group', '/api/v3/group'];

/** The reply of PUT and DELETE (see EmptyReply). */
function sendEmpty(reply: FastifyReply): FastifyReply {
  return reply.code(200).type('application/json').send();
}

export const groupsRoutes: FastifyPluginAsyncTypebox<{ groups: GroupsService }> = async (app, { groups }) => {
  const tags = ['groups'];

  for (const prefix of PREFIXES) {
    app.get(prefix, {
      schema: { tags, summary: 'List the sensor groups the caller may view', response: { 200: Type.Array(Group) } },
    }, (request) => groups.list(request.principal));

    app.post(prefix, {
      schema: {
        tags, summary: 'Create a sensor group (global admin); answers its id',
        body: GroupCreateBody, response: { 200: CreatedId },
      },
    }, (request) => groups.create(request.principal, request.body));

    app.get(`${prefix}/:id`, {
      schema: {
        tags, summary: 'Read a sensor group, as a one-element array',
        params: GroupParams, response: { 200: Type.Array(Group, { minItems: 1, maxItems: 1 }) },
      },
    }, (request) => groups.get(request.principal, request.params.id));

    app.put(`${prefix}/:id`, {
      schema: {
        tags, summary: 'Change the fields given (global admin); team_access sets the listed teams\' access',
        params: GroupParams, body: GroupUpdateBody, response: { 200: EmptyReply },
      },
    }, async (request, reply) => {
      await groups.update(request.principal, request.params.id, request.body);
      return sendEmpty(reply);
    });

    app.delete(`${prefix}/:id`, {
      schema: {
        tags, summary: 'Delete a sensor group (global admin); the Default Group (1) stays',
        params: GroupParams, response: { 200: EmptyReply },
      },
    }, async (request, reply) => {
      await groups.delete(request.principal, request.params.id);
      return sendEmpty(reply);
    });
  }
};
