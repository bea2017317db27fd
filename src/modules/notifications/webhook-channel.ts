/**
 * The HTTP POST channel: the alert as the API shows it, as JSON, to the configured URL, signed
 * with HMAC-SHA256 of the body (X-Vigil-Signature: sha256=<hex>) and named by
 * X-Vigil-Notification-Id, which receivers dedupe on. Any answer but 2xx is a failure.
 */
import { createHmac } from 'node:crypto';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { ChannelSender } from './channel-sender.js';
import type { WebhookSettings } from './channel-settings.js';
import { DeliveryError, deliveryError, withDeadline } from './delivery-error.js';
import type { NotificationPayload } from './notification.js';

export function signature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export class WebhookChannel implements ChannelSender {
  readonly channel = 'http_post' as const;
  readonly target: string;

  constructor(private readonly settings: WebhookSettings, private readonly options: { ca?: string; timeoutMs: number }) {
    this.target = settings.shown;
  }

  send(payload: NotificationPayload): Promise<void> {
    return this.post(JSON.stringify(payload.alert), payload.id);
  }

  test(): Promise<void> {
    return this.post(JSON.stringify({ test: true, message: 'Vigil test notification' }), 'test');
  }

  private post(body: string, id: string): Promise<void> {
    const url = new URL(this.settings.url);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let req: ClientRequest;
    const answered = new Promise<void>((resolve, reject) => {
      req = request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json', 'content-length': Buffer.byteLength(body),
          'x-vigil-notification-id': id, 'x-vigil-signature': signature(body, this.settings.secret),
        },
        ...(this.options.ca !== undefined && { ca: [...rootCertificates, this.options.ca] }),
      }, (res) => {
        res.resume();
        res.once('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new DeliveryError(`${this.target}: the receiver answered HTTP ${status}`, status === 401 || status === 403 ? 'authentication' : 'rejected'));
        });
        res.once('error', reject);
      });
      req.once('error', reject);
      req.end(body);
    });
    return withDeadline(answered, this.options.timeoutMs, this.target, () => req.destroy())
      .catch((error: unknown) => {
        throw deliveryError(error, this.target);
      });
  }
}
