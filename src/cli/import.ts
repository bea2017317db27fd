/**
 * `vigil import`: loads exported Sysmon logs into a running server, over HTTPS as `vigil
 * simulate` does. With a group administrator's API token it creates an ingest key for the run
 * (revoked when done: a token itself never sends events), then sends the files' events in gzip
 * batches to the JSON-lines endpoint. Each batch is named by the digest of its events, so
 * importing a file again stores nothing twice. Progress goes to stderr on one updating line
 * when stderr is a terminal; the summary goes to stdout. Exits 1 if any file could not be read whole.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { SensorClient, SensorRequestError } from '../sensor/client.js';
import { eventTexts, TruncatedFileError } from './import-files.js';

export interface ImportCommandOptions {
  server: string;
  token: string;
  group: number;
  ca?: string;
  json?: boolean;
}

/** Events per request at most; also bounded by BATCH_BYTES, well under the server's upload limit. */
const BATCH_EVENTS = 5000;
const BATCH_BYTES = 4 * 1024 * 1024;
const SEND_ATTEMPTS = 5;

export interface FileSummary {
  file: string;
  read: number;
  stored: number;
  /** Events not stored, by reason; `already_imported` for batches the server had stored before. */
  skipped: Record<string, number>;
  /** Why the file was not read to its end (truncated_file, unreadable_file), if it was not. */
  failed?: string;
}

interface Reply {
  duplicate: boolean;
  read: number;
  stored: number;
  skipped: Record<string, number>;
}

export async function runImport(files: string[], options: ImportCommandOptions): Promise<void> {
  const client = new SensorClient({ server: options.server, ca: options.ca === undefined ? undefined : readFileSync(options.ca, 'utf8') });
  const apiHeaders = { 'x-auth-token': options.token };
  let key: { id: number; key: string };
  try {
    key = await client.call('POST', `/api/v1/group/${options.group}/ingest_key`, apiHeaders, Buffer.from(JSON.stringify({ name: 'vigil import' }))) as typeof key;
  } catch (error) {
    if (!(error instanceof SensorRequestError)) throw error;
    process.stderr.write(`vigil: cannot create an ingest key for group ${options.group}: ${error.message}\n`);
    process.exitCode = 1;
    return;
  }
  const summaries: FileSummary[] = [];
  try {
    for (const file of files) summaries.push(await importFile(client, key.key, file));
  } catch (error) {
    if (!(error instanceof SensorRequestError)) throw error;
    process.stderr.write(`\nvigil: the server refused the import: ${error.message}\n`);
    process.exitCode = 1;
    return;
  } finally {
    await client.call('DELETE', `/api/v1/group/${options.group}/ingest_key/${key.id}`, apiHeaders).catch(() => undefined);
  }
  process.stdout.write(options.json ? JSON.stringify({ files: summaries, total: total(summaries) }) + '\n' : describe(summaries));
  if (summaries.some((s) => s.failed !== undefined)) process.exitCode = 1;
}

async function importFile(client: SensorClient, key: string, file: string): Promise<FileSummary> {
  const summary: FileSummary = { file, read: 0, stored: 0, skipped: {} };
  const size = await stat(file).then((s) => s.size, () => 0);
  const progress = process.stderr.isTTY ? (bytes: number) => process.stderr.write(`\r\x1b[K${progressLine(file, bytes, size, summary)}`) : () => undefined;
  let batch: string[] = [];
  let bytes = 0;
  const send = async () => {
    if (batch.length === 0) return;
    add(summary, await sendBatch(client, key, batch), batch.length);
    batch = [];
    bytes = 0;
  };
  try {
    for await (const text of eventTexts(file, progress)) {
      batch.push(text);
      bytes += text.length + 1;
      if (batch.length >= BATCH_EVENTS || bytes >= BATCH_BYTES) await send();
    }
  } catch (error) {
    if (error instanceof TruncatedFileError) summary.failed = 'truncated_file';
    else if ((error as NodeJS.ErrnoException).code !== undefined && !(error instanceof SensorRequestError)) summary.failed = 'unreadable_file';
    else throw error;
  }
  // What was read before a file broke off is stored all the same.
  await send();
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  return summary;
}

/** Sent again on a network error or an overloaded server: a batch is stored once however often it is sent. */
async function sendBatch(client: SensorClient, key: string, lines: string[]): Promise<Reply> {
  const text = lines.join('\n');
  const headers = {
    authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip',
    'x-vigil-batch': createHash('sha256').update(text).digest('hex'),
  };
  const body = gzipSync(text);
  for (let attempt = 1; ; attempt++) {
    try {
      return await client.call('POST', '/ingest/v1/sysmon', headers, body) as Reply;
    } catch (error) {
      const transient = error instanceof SensorRequestError && (error.status === 0 || error.status === 429 || error.status >= 500);
      if (!transient || attempt === SEND_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.max(error.retryAfterMs ?? 0, 500 * 2 ** (attempt - 1))));
    }
  }
}

function add(summary: FileSummary, reply: Reply, sent: number): void {
  if (reply.duplicate) {
    summary.read += sent;
    summary.skipped.already_imported = (summary.skipped.already_imported ?? 0) + sent;
    return;
  }
  summary.read += reply.read;
  summary.stored += reply.stored;
  for (const [reason, count] of Object.entries(reply.skipped)) summary.skipped[reason] = (summary.skipped[reason] ?? 0) + count;
}

function total(summaries: readonly FileSummary[]): Omit<FileSummary, 'file' | 'failed'> {
  const sum = { read: 0, stored: 0, skipped: {} as Record<string, number> };
  for (const s of summaries) add(sum as FileSummary, { duplicate: false, ...s }, 0);
  return sum;
}

function progressLine(file: string, bytes: number, size: number, summary: FileSummary): string {
  const fraction = size > 0 ? Math.min(1, bytes / size) : 0;
  const width = 30;
  const done = Math.round(fraction * width);
  return `${basename(file)} [${'#'.repeat(done)}${'.'.repeat(width - done)}] ${Math.round(fraction * 100)}%  ${summary.read} events read, ${summary.stored} stored`;
}

function describe(summaries: readonly FileSummary[]): string {
  const line = (name: string, s: Omit<FileSummary, 'file'>) => {
    const reasons = Object.entries(s.skipped).sort((a, b) => b[1] - a[1]).map(([reason, n]) => `${reason} ${n}`).join(', ');
    const skipped = Object.values(s.skipped).reduce((a, b) => a + b, 0);
    return `${name}: ${s.read} events read, ${s.stored} stored, ${skipped} skipped${reasons ? ` (${reasons})` : ''}` +
      (s.failed ? `; NOT READ TO THE END: ${s.failed}` : '') + '\n';
  };
  return summaries.map((s) => line(s.file, s)).join('') + (summaries.length > 1 ? line('total', total(summaries)) : '');
}
