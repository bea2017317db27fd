/**
 * Turns a new hit into outbox entries, inside the detection store's transaction: one per email,
 * syslog or HTTP POST action its watchlist or feed has on. The payload carries the alert as the
 * API shows it, raised or not (the alert action is separate).
 */
import type { SqlExecutor } from '../../db/database.js';
import { alertToWire } from '../alerts/alert-wire.js';
import type { NewAlert } from '../alerts/alerts.store.js';
import type { ActionRecord } from '../watchlists/detection-actions.store.js';
import { CHANNELS } from './channel-settings.js';
import type { NotificationPayload } from './notification.js';
import { enqueueNotification } from './outbox.store.js';

const EMAIL_ACTION = 0;

export async function enqueueHitNotifications(
  tx: SqlExecutor, alert: NewAlert, source: NotificationPayload['source'], actions: readonly Pick<ActionRecord, 'actionType' | 'actionData'>[],
): Promise<void> {
  const wire = alertToWire({ ...alert, status: 'Unresolved', resolvedMs: null, assignedTo: null, reportIgnored: source.kind === 'feed' ? false : null });
  for (const action of actions) {
    const channel = CHANNELS[action.actionType];
    if (channel === undefined) continue;
    const payload: NotificationPayload = {
      id: alert.uniqueId, source, alert: wire,
      ...(action.actionType === EMAIL_ACTION && { recipients: emailRecipients(action.actionData) }),
    };
    await enqueueNotification(tx, { notificationId: alert.uniqueId, channel, payload: JSON.stringify(payload), createdMs: alert.createdMs });
  }
}

/**
 * The users action_data's email_recipients names: Carbon Black's user ids (numbers, or numeric
 * text as some clients send them), or usernames, since Vigil's user records show no id. None when
 * unreadable.
 */
export function emailRecipients(actionData: string | null): (number | string)[] {
  try {
    const recipients = (JSON.parse(actionData ?? 'null') as { email_recipients?: unknown } | null)?.email_recipients;
    if (!Array.isArray(recipients)) return [];
    return (recipients as unknown[]).flatMap((r): (number | string)[] => {
      if (typeof r === 'number') return Number.isInteger(r) && r > 0 ? [r] : [];
      if (typeof r !== 'string' || r === '') return [];
      return /^\d+$/.test(r) ? [Number(r)] : [r];
    });
  } catch {
    return [];
  }
}
