/**
 * The syslog channel: each notification to every configured receiver, over UDP, TCP or TLS, as
 * RFC 5424 (the notification id in structured data) or RFC 3164. On TCP and TLS, RFC 5424
 * messages are framed by octet counting and RFC 3164 ones end with a newline (RFC 6587). A
 * connection per message: notifications are few, and a receiver that restarted is simply reached
 * again. A send fails when any receiver fails, and is then tried again to all of them (receivers
 * dedupe on the id).
 */
import { createSocket } from 'node:dgram';
import { hostname } from 'node:os';
import { isIPv6, connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates } from 'node:tls';
import type { ChannelSender } from './channel-sender.js';
import type { SyslogTarget } from './channel-settings.js';
import { deliveryError, withDeadline } from './delivery-error.js';
import { syslogText, type NotificationPayload } from './notification.js';

/** Facility user (1), severity warning (4). */
const PRIORITY = 1 * 8 + 4;
const APP = 'vigil';
/** IANA's example enterprise number, under which Vigil names its structured data. */
const SD_ID = 'vigil@32473';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export class SyslogChannel implements ChannelSender {
  readonly channel = 'syslog' as const;
  readonly target: string;

  constructor(
    private readonly targets: readonly SyslogTarget[],
    private readonly options: { ca?: string; timeoutMs: number; consoleUrl: string; now?: () => Date },
  ) {
    this.target = targets.map((t) => t.shown).join(', ');
  }

  async send(payload: NotificationPayload): Promise<void> {
    await this.toAll(syslogText(payload, this.options.consoleUrl), payload.id, 'hit');
  }

  async test(): Promise<void> {
    await this.toAll('Vigil test notification: this receiver gets watchlist and feed hits', 'test', 'test');
  }

  private async toAll(text: string, id: string, msgid: string): Promise<void> {
    const results = await Promise.allSettled(this.targets.map((t) => this.sendTo(t, formatted(t, text, id, msgid, this.options.now?.() ?? new Date()))));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private async sendTo(target: SyslogTarget, message: string): Promise<void> {
    try {
      if (target.transport === 'udp') await this.udp(target, message);
      else await this.stream(target, target.format === 'rfc5424' ? `${Buffer.byteLength(message)} ${message}` : `${message}\n`);
    } catch (error) {
      throw deliveryError(error, target.shown);
    }
  }

  private udp(target: SyslogTarget, message: string): Promise<void> {
    const socket = createSocket(isIPv6(target.host) ? 'udp6' : 'udp4');
    const sent = new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.send(message, target.port, target.host, (error) => (error ? reject(error) : resolve()));
    });
    return withDeadline(sent, this.options.timeoutMs, target.shown, () => undefined).finally(() => socket.close());
  }

  private stream(target: SyslogTarget, framed: string): Promise<void> {
    let socket: Socket;
    const written = new Promise<void>((resolve, reject) => {
      const ready = () => socket.end(framed);
      socket = target.transport === 'tls'
        ? tlsConnect({
          host: target.host, port: target.port, servername: target.host,
          ...(this.options.ca !== undefined && { ca: [...rootCertificates, this.options.ca] }),
        }, ready)
        : tcpConnect({ host: target.host, port: target.port }, ready);
      socket.once('error', reject);
      socket.once('finish', () => {
        resolve();
        socket.destroy();
      });
    });
    return withDeadline(written, this.options.timeoutMs, target.shown, () => socket.destroy());
  }
}

function formatted(target: SyslogTarget, text: string, id: string, msgid: string, at: Date): string {
  const host = hostname().split('.')[0] || '-';
  if (target.format === 'rfc3164') {
    const day = String(at.getDate()).padStart(2, ' ');
    const time = [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
    return `<${PRIORITY}>${MONTHS[at.getMonth()]} ${day} ${time} ${host} ${APP}[${process.pid}]: ${text}`;
  }
  const sd = `[${SD_ID} id="${id.replace(/["\\\]]/g, '\\$&')}"]`;
  return `<${PRIORITY}>1 ${at.toISOString()} ${host} ${APP} ${process.pid} ${msgid} ${sd} ${text}`;
}
