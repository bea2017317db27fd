/** Users, at the paths of reference core §8. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ResultSuccess } from '../../http/schemas.js';
import type { UsersService } from './users.service.js';
import { TokenReply, User, UserCreateBody, UserParams, UserSummary, UserUpdateBody } from './users.schemas.js';

export const usersRoutes: FastifyPluginAsyncTypebox<{ users: UsersService }> = async (app, { users }) => {
  const tags = ['users'];

  app.get('/api/users', {
    schema: { tags, summary: 'List users (global admin)', response: { 200: Type.Array(UserSummary) } },
  }, (request) => users.list(request.principal));

  app.post('/api/user', {
    schema: { tags, summary: 'Create a user (global admin)', body: UserCreateBody, response: { 200: ResultSuccess } },
  }, (request) => users.create(request.principal, request.body));

  app.get('/api/user/:username', {
    schema: { tags, summary: 'Read a user, with their API token (global admin or self)', params: UserParams, response: { 200: User } },
  }, (request) => users.get(request.principal, request.params.username));

  app.put('/api/user/:username', {
    schema: {
      tags, summary: 'Update a user (global admin, or self for names, email and password)',
      params: UserParams, body: UserUpdateBody, response: { 200: ResultSuccess },
    },
  }, (request) => users.update(request.principal, request.params.username, request.body));

  app.delete('/api/user/:username', {
    schema: { tags, summary: 'Delete a user (global admin)', params: UserParams, response: { 200: ResultSuccess } },
  }, (request) => users.delete(request.principal, request.params.username));

  app.post('/api/v1/user/:username/token', {
    schema: {
      tags, summary: 'Reset a user\'s API token; the old one stops working (global admin or self)',
      params: UserParams, response: { 200: TokenReply },
    },
  }, (request) => users.resetToken(request.principal, request.params.username));
};
