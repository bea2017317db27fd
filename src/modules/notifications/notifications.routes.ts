/**
 * Delivery state and tests of the channels that watchlist and feed actions notify through
 * (email, syslog, HTTP POST; docs/adr/0023-notification-outbox.md). Global administrators only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { NotificationsService } from './notifications.service.js';
import { ChannelParams, ChannelState, ChannelTestQuery, ChannelTestReply, DiscardFailedReply, RetryFailedReply } from './notifications.schemas.js';

export const notificationsRoutes: FastifyPluginAsyncTypebox<{ notifications: NotificationsService }> = async (app, { notifications }) => {
  const tags = ['notifications'];

  app.get('/api/v1/notifications/channels', {
    schema: {
      tags, summary: 'Delivery state of each notification channel (global admin)',
      response: { 200: Type.Array(ChannelState) },
    },
  }, (request) => notifications.channels(request.principal));

  app.post('/api/v1/notifications/channels/:channel/test', {
    schema: {
      tags, summary: 'Send a test message through a channel now (global admin)',
      description: 'Answers 400 with reason channel_unreachable, channel_timeout, channel_certificate, channel_authentication or channel_rejected and the receiver\'s words when it fails; 412 channel_not_configured when the settings give the channel nowhere to send.',
      params: ChannelParams, querystring: ChannelTestQuery, response: { 200: ChannelTestReply },
    },
  }, (request) => notifications.test(request.principal, request.params.channel, request.query));

  app.post('/api/v1/notifications/channels/:channel/retry', {
    schema: {
      tags, summary: 'Send the channel\'s failed notifications again, with a new round of tries (global admin)',
      params: ChannelParams, response: { 200: RetryFailedReply },
    },
  }, (request) => notifications.retryFailed(request.principal, request.params.channel));

  app.delete('/api/v1/notifications/channels/:channel/failed', {
    schema: {
      tags, summary: 'Delete the channel\'s failed notifications (global admin)',
      params: ChannelParams, response: { 200: DiscardFailedReply },
    },
  }, (request) => notifications.discardFailed(request.principal, request.params.channel));
};
