/**
 * Delivers what the outbox holds. Runs as the leased job `notification-delivery` (ADR 0022), so
 * one server at a time sends; should that server die mid-send, the next holder sends again: at
 * least once, receivers dedupe on the notification id. A failed try is retried after a wait that
 * doubles each time (up to an hour) until maxAttempts, then the entry is failed with its reason.
 * Sends run a few at a time, each under the channel's timeout, off the ingest and detection paths
 * (they only wrote the outbox row). A channel that fails in a run is not tried again in that run,
 * so a receiver that hangs costs one timeout per run, not one per entry.
 */
import type { ChannelName } from './channel-settings.js';
import type { ChannelSender } from './channel-sender.js';
import { DeliveryError } from './delivery-error.js';
import type { NotificationPayload } from './notification.js';
import type { OutboxEntry, OutboxStore } from './outbox.store.js';

export interface DeliveryOptions {
  maxAttempts: number;
  retryBaseMs: number;
  /** Entries read per batch, and sends at once. */
  batch?: number;
  concurrency?: number;
  /** How long sent entries are kept, for the channel counts. */
  keepSentMs?: number;
  now?: () => number;
}

const RETRY_MAX_MS = 3_600_000;
const DAY_MS = 86_400_000;

export class NotificationDelivery {
  private readonly now: () => number;

  constructor(
    private readonly store: OutboxStore,
    private readonly senders: ReadonlyMap<ChannelName, ChannelSender>,
    private readonly options: DeliveryOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Sends every entry due now (batch by batch), then forgets entries sent long ago. */
  async deliverDue(): Promise<void> {
    const broken = new Set<ChannelName>();
    const batch = this.options.batch ?? 50;
    for (;;) {
      const due = await this.store.due(this.now(), batch, [...broken]);
      if (due.length === 0) break;
      await this.inParallel(due, (entry) => this.deliver(entry, broken));
      if (due.length < batch) break;
    }
    await this.store.pruneSent(this.now() - (this.options.keepSentMs ?? 7 * DAY_MS));
  }

  private async deliver(entry: OutboxEntry, broken: Set<ChannelName>): Promise<void> {
    if (broken.has(entry.channel)) return;
    const sender = this.senders.get(entry.channel);
    if (!sender) {
      await this.store.markFailed(entry.id, `the ${entry.channel} channel is not configured (see the settings of notifications)`, this.now());
      return;
    }
    try {
      await sender.send(JSON.parse(entry.payload) as NotificationPayload);
      await this.store.markSent(entry.id, this.now());
    } catch (error) {
      const failure = error instanceof DeliveryError ? error : new DeliveryError(String(error), 'rejected');
      const attempts = entry.attempts + 1;
      const atMs = this.now();
      if (!failure.permanent) broken.add(entry.channel);
      if (failure.permanent || attempts >= this.options.maxAttempts) {
        await this.store.markFailed(entry.id, failure.message, atMs);
        return;
      }
      const waitMs = Math.min(this.options.retryBaseMs * 2 ** (attempts - 1), RETRY_MAX_MS);
      await this.store.markRetry(entry.id, failure.message, atMs, atMs + waitMs);
    }
  }

  private async inParallel(entries: OutboxEntry[], work: (entry: OutboxEntry) => Promise<void>): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < entries.length) await work(entries[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 4, entries.length) }, lane));
  }
}
