/**
 * A syslog output over TCP or TLS, one record per message, framed by a newline as
 * cb-event-forwarder's syslog output (Go's log/syslog) writes them:
 * `<PRI>TIMESTAMP HOST cb-event-forwarder[PID]: RECORD`. The connection is opened at the first
 * batch and again after it breaks; a batch is delivered once its bytes are written.
 */
import { hostname } from 'node:os';
import net from 'node:net';
import tls from 'node:tls';
import { encodeRecord, type ForwardFormat, type Forwardable } from '../forwarder-format.js';
import { DeliveryError, type ForwardOutput } from './output.js';

export interface SyslogOutputSettings {
  /** tcp://host:port or tls://host:port */
  url: string;
  /** PEM of the CA that signed the receiver's certificate; the system's CAs when absent. */
  caCert?: string | undefined;
  /** Skip verifying the receiver's certificate (a test receiver); never the default. */
  insecure?: boolean | undefined;
  timeoutMs: number;
}

/** user.info, as cb-event-forwarder's syslog writer sends. */
const PRIORITY = 14;

export class SyslogOutput implements ForwardOutput {
  private socket: net.Socket | undefined;
  private readonly host = hostname();

  constructor(private readonly settings: SyslogOutputSettings, private readonly format: ForwardFormat, private readonly now: () => number = Date.now) {}

  async send(records: readonly Forwardable[], ready?: Promise<void>): Promise<void> {
    const stamp = new Date(this.now()).toISOString();
    const text = records.map((record) => `<${PRIORITY}>${stamp} ${this.host} cb-event-forwarder[${process.pid}]: ${encodeRecord(record, this.format)}\n`).join('');
    await ready;
    const socket = await this.connected();
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new DeliveryError(`syslog receiver ${this.settings.url} did not take the batch within ${this.settings.timeoutMs} ms`)), this.settings.timeoutMs);
        socket.write(text, (error) => {
          clearTimeout(timer);
          if (error) reject(error);
          else resolve();
        });
      });
    } catch (error) {
      this.drop();
      throw error;
    }
  }

  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = undefined;
    if (socket !== undefined) await new Promise<void>((resolve) => socket.end(resolve));
  }

  private drop(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private connected(): Promise<net.Socket> {
    if (this.socket !== undefined && !this.socket.destroyed) return Promise.resolve(this.socket);
    const url = new URL(this.settings.url);
    const port = Number(url.port);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const secure = url.protocol === 'tls:';
      const socket = secure
        ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ca: this.settings.caCert, rejectUnauthorized: !this.settings.insecure })
        : net.connect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new DeliveryError(`syslog receiver ${this.settings.url} did not answer within ${this.settings.timeoutMs} ms`));
      }, this.settings.timeoutMs);
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        // A later error (the receiver went away) ends this connection; the next batch opens another.
        socket.on('error', () => this.drop());
        socket.on('close', () => {
          if (this.socket === socket) this.socket = undefined;
        });
        this.socket = socket;
        resolve(socket);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(new DeliveryError(`syslog receiver ${this.settings.url}: ${error.message}`));
      });
    });
  }
}
