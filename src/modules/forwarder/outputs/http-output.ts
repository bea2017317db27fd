/**
 * An HTTP(S) output: each batch is one POST, delivered when the receiver answers 2xx.
 * - Splunk HTTP Event Collector (a `splunkToken` is set): `Authorization: Splunk <token>` and
 *   one HEC event envelope per record, `{"time", "host", "source", "sourcetype", "event"}`,
 *   concatenated as HEC takes them.
 *   HEC bodies are gzip-compressed (`Content-Encoding: gzip`, which HEC accepts): raw events
 *   compress tenfold, and loopback aside the network is what a forwarder of every event fills.
 * - Otherwise cb-event-forwarder's default HTTP body, `{"service": "carbonblack", "alerts": [...]}`
 *   for JSON, or one LEEF record per line, uncompressed (a plain receiver may not inflate).
 *
 * A batch goes in requests of at most REQUEST_BYTES before compression, a few at a time, and is
 * delivered when every one of them was answered 2xx. Each body is written as it is sent, into
 * bytes kept for the next (BatchBytes).
 */
import http from 'node:http';
import https from 'node:https';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';
import { encodeRecord, writeRecord, type ForwardFormat, type Forwardable } from '../forwarder-format.js';
import { BatchBytes } from './batch-bytes.js';
import { DeliveryError, type ForwardOutput } from './output.js';

/**
 * Bytes per request before compression: under HEC's max_content_length as older Splunk releases
 * set it (1 MB), so that no receiver refuses a request for its size.
 */
const REQUEST_BYTES = 1_000_000;
/** Requests of one batch in flight at a time: the receiver works on one while the next travels. */
const REQUESTS_IN_FLIGHT = 4;

const gzipped = promisify(gzip);
const CLOSING_BRACE = 125;

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
  /** The parts of a HEC envelope that are the same for every record: before the time, after it, without it. */
  private readonly envelope: { time: Uint8Array; afterTime: Uint8Array; withoutTime: Uint8Array };
  /** The bytes of the bodies in flight, one per request, kept for the next batches. */
  private readonly bodies: BatchBytes[] = [];

  constructor(private readonly settings: HttpOutputSettings, private readonly format: ForwardFormat) {
    const url = new URL(settings.url);
    this.agent = url.protocol === 'https:'
      ? new https.Agent({ keepAlive: true, ca: settings.caCert, rejectUnauthorized: !settings.insecure })
      : new http.Agent({ keepAlive: true });
    const sourcetype = settings.sourcetype ?? (format === 'json' ? 'bit9:carbonblack:json' : 'bit9:carbonblack:leef');
    const head = `"host":${JSON.stringify(hostname())},"source":"vigil","sourcetype":${JSON.stringify(sourcetype)},"event":`;
    this.envelope = { time: Buffer.from('{"time":'), afterTime: Buffer.from(`,${head}`), withoutTime: Buffer.from(`{${head}`) };
  }

  async send(records: readonly Forwardable[]): Promise<void> {
    const headers: Record<string, string> = { ...this.settings.headers, 'content-type': this.contentType() };
    if (this.settings.splunkToken !== undefined) {
      headers.authorization = `Splunk ${this.settings.splunkToken}`;
      headers['content-encoding'] = 'gzip';
    }
    let next = 0;
    let failed = false;
    // Each sender writes its next body as it needs it, into bytes of its own that its request holds until answered.
    const sender = async (body: BatchBytes) => {
      while (next < records.length && !failed) {
        next = this.body(records, next, body.reset());
        try {
          await this.post(await this.compressed(body.bytes()), headers);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    while (this.bodies.length < REQUESTS_IN_FLIGHT) this.bodies.push(new BatchBytes());
    // Every request settles before the batch fails, so that none still holds a body when the next batch reuses it.
    const outcomes = await Promise.allSettled(this.bodies.map(sender));
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure !== undefined) throw failure.reason;
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }

  private contentType(): string {
    return this.settings.splunkToken === undefined && this.format === 'leef' ? 'text/plain; charset=utf-8' : 'application/json';
  }

  private compressed(body: Buffer): Promise<Buffer> {
    return this.settings.splunkToken === undefined ? Promise.resolve(body) : gzipped(body, { level: constants.Z_BEST_SPEED });
  }

  /**
   * Writes into `body` the request body of the records from `from` on, of at most REQUEST_BYTES
   * (one record over it goes alone); returns the index of the first record left out.
   */
  private body(records: readonly Forwardable[], from: number, body: BatchBytes): number {
    const { head, separator, tail } = this.frame();
    body.append(head);
    let i = from;
    for (; i < records.length; i++) {
      const before = body.length;
      if (i > from) body.append(separator);
      this.writePart(records[i]!, body);
      // Written before it is measured: the record that passes the limit is taken back for the next body.
      if (i > from && body.length > REQUEST_BYTES) {
        body.truncate(before);
        break;
      }
    }
    body.append(tail);
    return i;
  }

  /** What surrounds and separates the records of a body. */
  private frame(): { head: string; separator: string; tail: string } {
    if (this.settings.splunkToken !== undefined) return { head: '', separator: '\n', tail: '' };
    if (this.format === 'json') return { head: '{"service":"carbonblack","alerts":[', separator: ',', tail: ']}' };
    return { head: '', separator: '\n', tail: '\n' };
  }

  /** Writes one record's text in a body: a HEC envelope around it with a token, the record itself without. */
  private writePart(record: Forwardable, body: BatchBytes): void {
    if (this.settings.splunkToken === undefined) return writeRecord(record, this.format, body);
    const { time, afterTime, withoutTime } = this.envelope;
    if (typeof record.timestamp === 'number') {
      body.appendBytes(time);
      body.appendAscii(String(record.timestamp));
      body.appendBytes(afterTime);
    } else body.appendBytes(withoutTime);
    if (this.format === 'json') writeRecord(record, 'json', body);
    else body.append(JSON.stringify(encodeRecord(record, 'leef')));
    body.appendByte(CLOSING_BRACE);
  }

  private post(body: Buffer, headers: Record<string, string>): Promise<void> {
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
