/** Delivery state of the notification channels, and their test (Vigil's own routes, admin only). */
import { Type, type Static } from '@sinclair/typebox';

export const ChannelParams = Type.Object({
  channel: Type.Union([Type.Literal('email'), Type.Literal('syslog'), Type.Literal('http_post')]),
});

export const ChannelState = Type.Object({
  channel: Type.String({ description: 'email, syslog or http_post: the channel of action types 0, 1 and 2' }),
  configured: Type.Boolean({ description: 'Whether the settings give this channel somewhere to send (smtpUrl, syslogUrl, webhookUrl).' }),
  target: Type.Union([Type.String(), Type.Null()], { description: 'Where it sends, passwords hidden.' }),
  pending: Type.Integer({ description: 'Notifications not tried yet.' }),
  retrying: Type.Integer({ description: 'Notifications that failed and will be tried again.' }),
  sent: Type.Integer({ description: 'Notifications delivered (in the last 7 days).' }),
  failed: Type.Integer({ description: 'Notifications given up; last_error says why.' }),
  failing: Type.Boolean({ description: 'The last delivery tried failed and notifications are waiting or lost.' }),
  last_error: Type.Union([Type.String(), Type.Null()]),
  last_error_time: Type.Union([Type.String(), Type.Null()]),
  last_success_time: Type.Union([Type.String(), Type.Null()]),
});
export type ChannelState = Static<typeof ChannelState>;

/** Given in the query, so that a test needs no body. */
export const ChannelTestQuery = Type.Object({
  to: Type.Optional(Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$', description: 'email only: the address to send the test to (default: your own)' })),
});
export type ChannelTestQuery = Static<typeof ChannelTestQuery>;

export const ChannelTestReply = Type.Object({
  result: Type.Literal('success'),
  channel: Type.String(),
  target: Type.String(),
});

export const RetryFailedReply = Type.Object({
  channel: Type.String(),
  requeued: Type.Integer({ description: 'Failed notifications put back to be sent, with a new round of tries.' }),
});

export const DiscardFailedReply = Type.Object({
  channel: Type.String(),
  deleted: Type.Integer({ description: 'Failed notifications deleted.' }),
});
