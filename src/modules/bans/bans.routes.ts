/** Hash bans, at the paths of reference admin §2.1 (the path every client in the wild uses). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ResultSuccess } from '../../http/schemas.js';
import type { BansService } from './bans.service.js';
import { Ban, BanCreateBody, BanDeleteBody, BanListQuery, BanParams, BanUpdateBody } from './bans.schemas.js';

const PREFIX = '/api/v1/banning/blacklist';

export const bansRoutes: FastifyPluginAsyncTypebox<{ bans: BansService }> = async (app, { bans }) => {
  const tags = ['banning'];

  app.get(PREFIX, {
    schema: { tags, summary: 'List bans, enabled and disabled', querystring: BanListQuery, response: { 200: Type.Array(Ban) } },
  }, (request) => bans.list(request.principal, request.query));

  app.post(PREFIX, {
    schema: {
      tags, summary: 'Ban a hash, or re-enable its disabled ban (global admin); 409 when it is banned already',
      body: BanCreateBody, response: { 200: ResultSuccess },
    },
  }, (request) => bans.ban(request.principal, request.body));

  app.get(`${PREFIX}/:md5`, {
    schema: { tags, summary: 'Read a ban, enabled or disabled', params: BanParams, response: { 200: Ban } },
  }, (request) => bans.get(request.principal, request.params.md5));

  app.put(`${PREFIX}/:md5`, {
    schema: {
      tags, summary: 'Change a ban\'s text or enabled state (global admin); other fields of the record are ignored',
      params: BanParams, body: BanUpdateBody, response: { 200: ResultSuccess },
    },
  }, (request) => bans.update(request.principal, request.params.md5, request.body));

  app.delete(`${PREFIX}/:md5`, {
    schema: {
      tags, summary: 'Unban: disable the ban, keeping its record (global admin); 409 when there is no enabled ban',
      params: BanParams, body: BanDeleteBody, response: { 200: ResultSuccess },
    },
  }, (request) => bans.unban(request.principal, request.params.md5, request.body));
};
