/** The email channel: nodemailer over SMTP, TLS from the start (smtps) or STARTTLS, to the users an action names. */
import { rootCertificates } from 'node:tls';
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer';
import type { ChannelSender } from './channel-sender.js';
import type { EmailSettings } from './channel-settings.js';
import { DeliveryError, deliveryError } from './delivery-error.js';
import { emailMessage, type NotificationPayload } from './notification.js';

export class EmailChannel implements ChannelSender {
  readonly channel = 'email' as const;
  readonly target: string;
  private readonly transport: Transporter;
  private readonly consoleUrl: string;

  constructor(
    private readonly settings: EmailSettings,
    options: { ca?: string; timeoutMs: number; consoleUrl: string },
    /** Addresses of users by id or username. */
    private readonly recipients: (users: readonly (number | string)[]) => Promise<string[]>,
  ) {
    this.target = settings.shown;
    this.consoleUrl = options.consoleUrl;
    this.transport = nodemailer.createTransport({
      host: settings.host, port: settings.port, secure: settings.secure, requireTLS: settings.requireStartTls,
      ...(settings.user !== undefined && { auth: { user: settings.user, pass: settings.password ?? '' } }),
      // A ca replaces Node's own list: keep the system's authorities beside the extra ones.
      ...(options.ca !== undefined && { tls: { ca: [...rootCertificates, options.ca] } }),
      connectionTimeout: options.timeoutMs, greetingTimeout: options.timeoutMs, socketTimeout: options.timeoutMs,
    });
  }

  async send(payload: NotificationPayload): Promise<void> {
    const to = await this.recipients(payload.recipients ?? []);
    if (to.length === 0) {
      throw new DeliveryError('the email action names no user with an email address (action_data email_recipients)', 'rejected', true);
    }
    const { subject, text } = emailMessage(payload, this.consoleUrl);
    await this.mail({ to, subject, text, messageId: `<${payload.id}@vigil>`, headers: { 'X-Vigil-Notification-Id': payload.id } });
  }

  async test(to: string | undefined): Promise<void> {
    if (!to) throw new DeliveryError('no address to send the test to: give "to", or set an email address on your user', 'rejected', true);
    await this.mail({ to, subject: '[Vigil] test notification', text: 'Vigil can send watchlist and feed notifications through this SMTP server.\n' });
  }

  private async mail(message: SendMailOptions): Promise<void> {
    try {
      await this.transport.sendMail({ from: this.settings.from, ...message });
    } catch (error) {
      throw deliveryError(error, this.target);
    }
  }
}
