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
 * A batch goes in requests of at most REQUEST_CHARS of text, a few at a time, and is delivered
 * when every one of them was answered 2xx. Each body is written as it is sent, into bytes kept
 * for the next (BatchBytes).
 */
import http from 'node:http';
import https from 'node:https';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import { constants, gzip } from 'node:zlib';
import { encodeRecord, TextRecord, type ForwardFormat, type Forwardable } from '../forwarder-format.js';
import { BatchBytes } from './batch-bytes.js';
import { DeliveryError, type ForwardOutput } from './output.js';

/**
 * Characters of text per request (about as many bytes), before compression: under HEC's max_content_length as older Splunk releases
 * set it (1 MB), so that no receiver refuses a request for its size.
 */
const REQUEST_CHARS = 1_000_000;
/**
 * Requests of one batch in flight at a time: the receiver works on some while others travel. A
 * batch's delivery is bound by this times a request's round trip, which the cores that ingest
 * keeps full stretch past 100 ms: at 4, HEC fell behind ingest with the forwarder's thread idle.
 */
const REQUESTS_IN_FLIGHT = 8;
/**
 * Bytes of compressed output zlib makes per pass on its thread pool, more than a request's body
 * takes: each further pass waits for this thread to hand it on, behind whatever it is doing.
 */
const GZIP_CHUNK_BYTES = 256 * 1024;

const gzipped = promisify(gzip);

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
  /** The part of a HEC envelope that is the same for every record. */
  private readonly envelopeHead: string;
  /** The bytes of the bodies in flight, one per request, kept for the next batches. */
  private readonly bodies: BatchBytes[] = [];

  constructor(private readonly settings: HttpOutputSettings, private readonly format: ForwardFormat) {
    const url = new URL(settings.url);
    this.agent = url.protocol === 'https:'
      ? new https.Agent({ keepAlive: true, ca: settings.caCert, rejectUnauthorized: !settings.insecure })
      : new http.Agent({ keepAlive: true });
    const sourcetype = settings.sourcetype ?? (format === 'json' ? 'bit9:carbonblack:json' : 'bit9:carbonblack:leef');
    this.envelopeHead = `"host":${JSON.stringify(hostname())},"source":"vigil","sourcetype":${JSON.stringify(sourcetype)},"event":`;
  }

  async send(records: readonly Forwardable[], ready?: Promise<void>): Promise<void> {
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
          const compressed = await this.compressed(body.bytes());
          await ready;
          await this.post(compressed, headers);
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
    return this.settings.splunkToken === undefined ? Promise.resolve(body) : gzipped(body, { level: constants.Z_BEST_SPEED, chunkSize: GZIP_CHUNK_BYTES });
  }

  /**
   * Writes into `body` the request body of the records from `from` on, of at most REQUEST_CHARS
   * of text (one record over it goes alone); returns the index of the first record left out.
   */
  private body(records: readonly Forwardable[], from: number, body: BatchBytes): number {
    const { head, separator, tail } = this.frame();
    body.append(head);
    let length = 0;
    let i = from;
    for (; i < records.length; i++) {
      const part = this.part(records[i]!);
      if (i > from && length + part.length > REQUEST_CHARS) break;
      if (i > from) body.append(separator);
      body.append(part);
      length += part.length + 1;
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

  /** One record's text in a body: a HEC envelope around it with a token, the record itself without. */
  private part(record: Forwardable): string {
    if (this.settings.splunkToken === undefined) return encodeRecord(record, this.format);
    const time = record instanceof TextRecord ? `"time":${record.timestampText},` : typeof record.timestamp === 'number' ? `"time":${record.timestamp},` : '';
    // Envelopes are joined as text around each record's JSON, which outputs share (encodeRecord).
    const event = this.format === 'json' ? encodeRecord(record, 'json') : JSON.stringify(encodeRecord(record, 'leef'));
    return `{${time}${this.envelopeHead}${event}}`;
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
