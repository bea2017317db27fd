/**
 * Builds the notification channels from their settings (channel-settings.ts checked them) and the
 * delivery worker over the outbox, schedules it as the leased job `notification-delivery`, and
 * answers the service the routes and /api/info read.
 */
import type { Config } from '../../config/schema.js';
import type { SqlDatabase } from '../../db/database.js';
import type { JobScheduler } from '../../jobs/leased-jobs.js';
import type { ChannelSender } from './channel-sender.js';
import type { ChannelName, ChannelSettings } from './channel-settings.js';
import { NotificationDelivery } from './delivery-worker.js';
import { EmailChannel } from './email-channel.js';
import { NotificationsService } from './notifications.service.js';
import { SqlOutboxStore } from './outbox.store.js';
import { SyslogChannel } from './syslog-channel.js';
import { WebhookChannel } from './webhook-channel.js';

/** How often the outbox is looked at for entries due: a new hit's notification leaves within about this. */
const DELIVERY_CHECK_MS = 1000;

export function startNotifications(settings: ChannelSettings, config: Config, db: SqlDatabase, jobs: JobScheduler): NotificationsService {
  const store = new SqlOutboxStore(db);
  const options = { ...(settings.ca !== undefined && { ca: settings.ca }), timeoutMs: settings.timeoutMs, consoleUrl: settings.consoleUrl };
  const senders = new Map<ChannelName, ChannelSender>();
  if (settings.email) senders.set('email', new EmailChannel(settings.email, options, (ids) => store.recipientEmails(ids)));
  if (settings.syslog.length > 0) senders.set('syslog', new SyslogChannel(settings.syslog, options));
  if (settings.webhook) senders.set('http_post', new WebhookChannel(settings.webhook, options));
  const delivery = new NotificationDelivery(store, senders, {
    maxAttempts: config.notificationMaxAttempts, retryBaseMs: config.notificationRetrySeconds * 1000,
  });
  // Stopped with the other jobs when the container closes (LeasedJobs.stop).
  jobs.every('notification-delivery', DELIVERY_CHECK_MS, () => delivery.deliverDue());
  return new NotificationsService(store, senders);
}
