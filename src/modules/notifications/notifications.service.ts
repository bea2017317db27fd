/**
 * The notification channels as administrators see them: what each has sent, is retrying and gave
 * up, and a test message on demand that answers why it failed (unreachable host, bad certificate,
 * refused password, …). Also the warning /api/info shows while a channel is failing.
 */
import { DomainError, PreconditionFailedError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { documentTime } from '../../domain/wire-time.js';
import { CHANNELS, type ChannelName } from './channel-settings.js';
import type { ChannelSender } from './channel-sender.js';
import { DeliveryError } from './delivery-error.js';
import type { ChannelState, ChannelTestQuery } from './notifications.schemas.js';
import type { ChannelCounts, OutboxStore } from './outbox.store.js';

const SETTING: Record<ChannelName, string> = { email: 'smtpUrl (VIGIL_SMTP_URL)', syslog: 'syslogUrl (VIGIL_SYSLOG_URL)', http_post: 'webhookUrl (VIGIL_WEBHOOK_URL)' };

export class NotificationsService {
  constructor(private readonly store: OutboxStore, private readonly senders: ReadonlyMap<ChannelName, ChannelSender>) {}

  async channels(actor: Principal): Promise<ChannelState[]> {
    requireGlobalAdmin(actor, 'read the notification channels');
    return this.states();
  }

  async test(actor: Principal, channel: ChannelName, query: ChannelTestQuery) {
    requireGlobalAdmin(actor, 'test the notification channels');
    const sender = this.senders.get(channel);
    if (!sender) throw new PreconditionFailedError(`The ${channel} channel is not configured: set ${SETTING[channel]}`, 'channel_not_configured');
    const to = channel === 'email' ? query.to ?? (await this.store.recipientEmails([actor.userId]))[0] : undefined;
    try {
      await sender.test(to);
    } catch (error) {
      if (!(error instanceof DeliveryError)) throw error;
      throw new DomainError('invalid_request', `The test of the ${channel} channel failed: ${error.message}`, `channel_${error.kind}`);
    }
    return { result: 'success' as const, channel, target: sender.target };
  }

  /** Sends the channel's given-up notifications again, from now, once its receiver is fixed. */
  async retryFailed(actor: Principal, channel: ChannelName, nowMs = Date.now()) {
    requireGlobalAdmin(actor, 'retry failed notifications');
    return { channel, requeued: await this.store.requeueFailed(channel, nowMs) };
  }

  /** Forgets the channel's given-up notifications (they will not be sent). */
  async discardFailed(actor: Principal, channel: ChannelName) {
    requireGlobalAdmin(actor, 'discard failed notifications');
    return { channel, deleted: await this.store.deleteFailed(channel) };
  }

  /** Why notifications need attention (a channel is failing), or null. */
  async warning(): Promise<string | null> {
    const failing = (await this.states()).filter((state) => state.failing);
    if (failing.length === 0) return null;
    return `Notifications are failing: ${failing.map((s) => `${s.channel} (${s.failed} failed, ${s.retrying} retrying): ${s.last_error}`).join('; ')}`;
  }

  private async states(): Promise<ChannelState[]> {
    const counts = new Map((await this.store.channelCounts()).map((c) => [c.channel, c]));
    return CHANNELS.map((channel) => toWire(channel, this.senders.get(channel), counts.get(channel)));
  }
}

function toWire(channel: ChannelName, sender: ChannelSender | undefined, counts: ChannelCounts | undefined): ChannelState {
  const c = counts ?? { pending: 0, retrying: 0, sent: 0, failed: 0, lastError: null, lastErrorMs: null, lastSuccessMs: null };
  const lastFailed = c.lastErrorMs !== null && (c.lastSuccessMs === null || c.lastErrorMs > c.lastSuccessMs);
  return {
    channel, configured: sender !== undefined, target: sender?.target ?? null,
    pending: c.pending, retrying: c.retrying, sent: c.sent, failed: c.failed,
    failing: lastFailed && c.retrying + c.failed > 0,
    last_error: c.lastError,
    last_error_time: c.lastErrorMs === null ? null : documentTime(c.lastErrorMs),
    last_success_time: c.lastSuccessMs === null ? null : documentTime(c.lastSuccessMs),
  };
}
