/** What the delivery worker and the test route need of a channel. */
import type { ChannelName } from './channel-settings.js';
import type { NotificationPayload } from './notification.js';

export interface ChannelSender {
  readonly channel: ChannelName;
  /** Where the channel sends (URLs without passwords). */
  readonly target: string;
  /** Delivers one notification; rejects with a DeliveryError that says why. */
  send(payload: NotificationPayload): Promise<void>;
  /** Sends a test message (email: to `to`); rejects with a DeliveryError that says why. */
  test(to: string | undefined): Promise<void>;
}
