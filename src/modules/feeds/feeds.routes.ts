/** Feeds, their synchronization and their actions, at the paths of reference admin §4.1. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ResultSuccess } from '../../http/schemas.js';
import { ActionCreateBody, ActionParams, ActionUpdateBody, DetectionAction } from '../watchlists/detection-actions.schemas.js';
import { Feed, FeedCreateBody, FeedParams, FeedUpdateBody, SynchronizeBody } from './feeds.schemas.js';
import type { FeedsService } from './feeds.service.js';

const PREFIX = '/api/v1/feed';

const SyncReply = Type.Object({
  result: Type.Literal('success'),
  reports_added: Type.Integer(),
  reports_updated: Type.Integer(),
  reports_deleted: Type.Integer({ description: 'marked deleted: no longer in the feed (full synchronization only)' }),
});

export const feedsRoutes: FastifyPluginAsyncTypebox<{ feeds: FeedsService }> = async (app, { feeds }) => {
  const tags = ['feeds'];

  app.get(PREFIX, {
    schema: { tags, summary: 'Every feed, by id', response: { 200: Type.Array(Feed) } },
  }, (request) => feeds.list(request.principal));

  app.post(PREFIX, {
    schema: {
      tags,
      summary: 'Add a feed from its feed_url (global admin): the server downloads it and answers the new record. '
        + '400 feed_unreachable, 408 feed_timeout, 409 feed_malformed / feed_too_large / a feed of that name exists.',
      body: FeedCreateBody, response: { 200: Feed },
    },
  }, (request) => feeds.create(request.principal, request.body));

  app.get(`${PREFIX}/:id`, {
    schema: { tags, summary: 'Read a feed', params: FeedParams, response: { 200: Feed } },
  }, (request) => feeds.get(request.principal, request.params.id));

  app.put(`${PREFIX}/:id`, {
    schema: {
      tags, summary: 'Change a feed\'s settings (global admin), e.g. enabled; answers the record',
      params: FeedParams, body: FeedUpdateBody, response: { 200: Feed },
    },
  }, (request) => feeds.update(request.principal, request.params.id, request.body));

  app.delete(`${PREFIX}/:id`, {
    schema: {
      tags, summary: 'Delete a feed with its reports, actions and tags (global admin); its alerts stay',
      params: FeedParams, response: { 200: ResultSuccess },
    },
  }, (request) => feeds.delete(request.principal, request.params.id));

  app.post(`${PREFIX}/:id/synchronize`, {
    schema: {
      tags, summary: 'Download the feed again and update its reports (global admin); 409 when the feed is disabled',
      params: FeedParams, body: SynchronizeBody, response: { 200: SyncReply },
    },
  }, (request) => feeds.synchronize(request.principal, request.params.id, request.body ?? null));

  app.get(`${PREFIX}/:id/requirements`, {
    schema: { tags, summary: 'Data the feed requires to be shared: none', params: FeedParams, response: { 200: Type.Array(Type.String()) } },
  }, (request) => feeds.requirements(request.principal, request.params.id));

  app.get(`${PREFIX}/:id/action`, {
    schema: { tags, summary: 'The feed\'s actions', params: FeedParams, response: { 200: Type.Array(DetectionAction) } },
  }, (request) => feeds.actions(request.principal, request.params.id));

  app.post(`${PREFIX}/:id/action`, {
    schema: {
      tags, summary: 'Add an action (global admin); one per type. Type 3 raises alerts on hits of the feed\'s reports.',
      params: FeedParams, body: ActionCreateBody, response: { 200: DetectionAction },
    },
  }, (request) => feeds.createAction(request.principal, request.params.id, request.body));

  app.put(`${PREFIX}/:id/action/:action_id`, {
    schema: { tags, summary: 'Change an action (global admin)', params: ActionParams, body: ActionUpdateBody, response: { 200: DetectionAction } },
  }, (request) => feeds.updateAction(request.principal, request.params.id, request.params.action_id, request.body));

  app.delete(`${PREFIX}/:id/action/:action_id`, {
    schema: { tags, summary: 'Remove an action (global admin)', params: ActionParams, response: { 200: ResultSuccess } },
  }, (request) => feeds.deleteAction(request.principal, request.params.id, request.params.action_id));
};
