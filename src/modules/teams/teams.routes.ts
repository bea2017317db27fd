/** Teams, at the paths of reference core §8. Global admins only. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ResultSuccess } from '../../http/schemas.js';
import type { TeamsService } from './teams.service.js';
import { Team, TeamCreateBody, TeamParams, TeamUpdateBody } from './teams.schemas.js';

export const teamsRoutes: FastifyPluginAsyncTypebox<{ teams: TeamsService }> = async (app, { teams }) => {
  const tags = ['teams'];

  app.get('/api/teams', {
    schema: { tags, summary: 'List teams with their access per sensor group', response: { 200: Type.Array(Team) } },
  }, (request) => teams.list(request.principal));

  app.post('/api/team', {
    schema: { tags, summary: 'Create a team; answers the created team', body: TeamCreateBody, response: { 200: Team } },
  }, (request) => teams.create(request.principal, request.body));

  app.get('/api/team/:id', {
    schema: { tags, summary: 'Read a team', params: TeamParams, response: { 200: Team } },
  }, (request) => teams.get(request.principal, request.params.id));

  app.put('/api/team/:id', {
    schema: {
      tags, summary: 'Rename a team or change its access to the groups listed',
      params: TeamParams, body: TeamUpdateBody, response: { 200: ResultSuccess },
    },
  }, (request) => teams.update(request.principal, request.params.id, request.body));

  app.delete('/api/team/:id', {
    schema: { tags, summary: 'Delete a team (its members stay)', params: TeamParams, response: { 200: ResultSuccess } },
  }, (request) => teams.delete(request.principal, request.params.id));
};
