/** Watchlists and their actions, at the paths of reference admin §1.1. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CreatedId, ResultSuccess } from '../../http/schemas.js';
import {
  ActionCreateBody, ActionParams, ActionTypeBody, ActionTypeParams, ActionTypeState, ActionUpdateBody, DetectionAction,
} from './detection-actions.schemas.js';
import { Watchlist, WatchlistCreateBody, WatchlistParams, WatchlistUpdateBody } from './watchlists.schemas.js';
import type { WatchlistsService } from './watchlists.service.js';

const PREFIX = '/api/v1/watchlist';

export const watchlistsRoutes: FastifyPluginAsyncTypebox<{ watchlists: WatchlistsService }> = async (app, { watchlists }) => {
  const tags = ['watchlists'];

  app.get(PREFIX, {
    schema: { tags, summary: 'Every watchlist, by id', response: { 200: Type.Array(Watchlist) } },
  }, (request) => watchlists.list(request.principal));

  app.post(PREFIX, {
    schema: {
      tags, summary: 'Create a watchlist (global admin); answers its id. A search that cannot be read is a 400.',
      body: WatchlistCreateBody, response: { 200: CreatedId },
    },
  }, (request) => watchlists.create(request.principal, request.body));

  app.get(`${PREFIX}/:id`, {
    schema: { tags, summary: 'Read a watchlist with its hit counters', params: WatchlistParams, response: { 200: Watchlist } },
  }, (request) => watchlists.get(request.principal, request.params.id));

  app.put(`${PREFIX}/:id`, {
    schema: {
      tags, summary: 'Change the fields given (global admin); fields left out, counters and dates keep their values',
      params: WatchlistParams, body: WatchlistUpdateBody, response: { 200: ResultSuccess },
    },
  }, (request) => watchlists.update(request.principal, request.params.id, request.body));

  app.delete(`${PREFIX}/:id`, {
    schema: {
      tags, summary: 'Delete a watchlist with its actions and tags (global admin); alerts it raised stay',
      params: WatchlistParams, response: { 200: ResultSuccess },
    },
  }, (request) => watchlists.delete(request.principal, request.params.id));

  app.get(`${PREFIX}/:id/action`, {
    schema: { tags, summary: 'The watchlist\'s actions', params: WatchlistParams, response: { 200: Type.Array(DetectionAction) } },
  }, (request) => watchlists.actions(request.principal, request.params.id));

  app.post(`${PREFIX}/:id/action`, {
    schema: {
      tags, summary: 'Add an action (global admin); one per type, 409 for a second. Type 3 raises alerts on hits.',
      params: WatchlistParams, body: ActionCreateBody, response: { 200: DetectionAction },
    },
  }, (request) => watchlists.createAction(request.principal, request.params.id, request.body));

  app.put(`${PREFIX}/:id/action/:action_id`, {
    schema: {
      tags, summary: 'Change an action (global admin)', params: ActionParams, body: ActionUpdateBody, response: { 200: DetectionAction },
    },
  }, (request) => watchlists.updateAction(request.principal, request.params.id, request.params.action_id, request.body));

  app.delete(`${PREFIX}/:id/action/:action_id`, {
    schema: { tags, summary: 'Remove an action (global admin)', params: ActionParams, response: { 200: ResultSuccess } },
  }, (request) => watchlists.deleteAction(request.principal, request.params.id, request.params.action_id));

  app.get(`${PREFIX}/:id/action_type`, {
    schema: {
      tags, summary: 'Each action type and whether the watchlist has it on', params: WatchlistParams,
      response: { 200: Type.Array(ActionTypeState) },
    },
  }, (request) => watchlists.actionTypes(request.principal, request.params.id));

  app.put(`${PREFIX}/:id/action_type/:action_type`, {
    schema: {
      tags, summary: 'Turn an action type on or off (global admin)', params: ActionTypeParams, body: ActionTypeBody,
      response: { 200: ResultSuccess },
    },
  }, (request) => watchlists.setActionType(request.principal, request.params.id, request.params.action_type, request.body.enabled));
};
