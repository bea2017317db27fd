/**
 * An HTTP(S) output: each batch is one POST, delivered when the receiver answers 2xx.
 * - Splunk HTTP Event Collector (a `splunkToken` is set): `Authorization: Splunk <token>` and
 *   one HEC event envelope per record, `{"time", "host", "source", "sourcetype", "event"}`,
 *   concatenated as HEC takes them.
 * - Otherwise cb-event-forwarder's default HTTP body, `{"service": "carbonblack", "alerts": [...]}`
 *   for JSON, or one LEEF record per line.
 */
import http from 'node:http';
import https from 'node:https';
import { hostname } from 'node:os';
import { encodeRecord, type ForwardFormat, type Forwardable } from '../forwarder-format.js';
import { DeliveryError, type ForwardOutput } from './output.js';

const RECORDS_PER_REQUEST = 1000;

export interface HttpOutputSettings {
  url: string;
  splunkToken?: string | undefined;
  /** HEC's sourcetype; the Splunk app's, by default. */
  sourcetype?: string | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
  caCert?: string | undefined;
  insecure?: boolean | undefined;
  timeoutMs: number;
}

export class HttpOutput implements ForwardOutput {
  private readonly agent: http.Agent;
  private readonly host = hostname();

  constructor(private readonly settings: HttpOutputSettings, private readonly format: ForwardFormat) {
    const url = new URL(settings.url);
    this.agent = url.protocol === 'https:'
      ? new https.Agent({ keepAlive: true, ca: settings.caCert, rejectUnauthorized: !settings.insecure })
      : new http.Agent({ keepAlive: true });
  }

  async send(records: readonly Forwardable[]): Promise<void> {
    // A batch of raw events can hold tens of thousands: receivers limit a request's size (HEC's
    // max_content_length), so it goes in requests of at most RECORDS_PER_REQUEST.
    for (let start = 0; start < records.length; start += RECORDS_PER_REQUEST) {
      const { body, contentType } = this.body(records.slice(start, start + RECORDS_PER_REQUEST));
      const headers: Record<string, string> = { ...this.settings.headers, 'content-type': contentType };
      if (this.settings.splunkToken !== undefined) headers.authorization = `Splunk ${this.settings.splunkToken}`;
      await this.post(body, headers);
    }
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }

  private body(records: readonly Forwardable[]): { body: string; contentType: string } {
    if (this.settings.splunkToken !== undefined) {
      const sourcetype = this.settings.sourcetype ?? (this.format === 'json' ? 'bit9:carbonblack:json' : 'bit9:carbonblack:leef');
      // Envelopes are joined as text around each record's JSON, which outputs share (encodeRecord).
      const head = `"host":${JSON.stringify(this.host)},"source":"vigil","sourcetype":${JSON.stringify(sourcetype)},"event":`;
      const body = records.map((record) => {
        const time = typeof record.timestamp === 'number' ? `"time":${record.timestamp},` : '';
        const event = this.format === 'json' ? encodeRecord(record, 'json') : JSON.stringify(encodeRecord(record, 'leef'));
        return `{${time}${head}${event}}`;
      }).join('\n');
      return { body, contentType: 'application/json' };
    }
    if (this.format === 'json') {
      return { body: `{"service":"carbonblack","alerts":[${records.map((record) => encodeRecord(record, 'json')).join(',')}]}`, contentType: 'application/json' };
    }
    return { body: records.map((record) => encodeRecord(record, 'leef')).join('\n') + '\n', contentType: 'text/plain; charset=utf-8' };
  }

  private post(body: string, headers: Record<string, string>): Promise<void> {
    const url = new URL(this.settings.url);
    const request = url.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', agent: this.agent, headers, timeout: this.settings.timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => { if (chunks.length < 8) chunks.push(chunk); });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new DeliveryError(`HTTP receiver ${this.settings.url} answered ${status}: ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`));
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new DeliveryError(`HTTP receiver ${this.settings.url} did not answer within ${this.settings.timeoutMs} ms`)));
      req.on('error', (error) => reject(error instanceof DeliveryError ? error : new DeliveryError(`HTTP receiver ${this.settings.url}: ${error.message}`)));
      req.end(body);
    });
  }
}
