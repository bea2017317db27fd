/**
 * The process report of GET /api/v1/process/{id}/{segment}/report (reference core §4.1): a zip
 * holding json/process.json (the process document), json/summary.json (the v1 summary) and one
 * CSV per kind of file, registry, module and network event, one row per event in time order.
 * The reference names the files but not the CSV columns; these are the fields of the events
 * formats, named.
 */
import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { FILEMOD_CODES, isoMillis, REGMOD_CODES } from './event-formats/wire.js';

type Row = (string | number | boolean | undefined)[];

const SHEETS = {
  'csv/filemods.csv': {
    header: ['time', 'operation_type', 'path', 'md5', 'sha256', 'file_type', 'tamper'],
    row: (e: SensorEvent): Row | undefined => e.type === 'filemod'
      ? [isoMillis(e.ts), FILEMOD_CODES[e.action], e.path, e.md5, e.sha256, e.file_type, e.tamper ?? false] : undefined,
  },
  'csv/regmods.csv': {
    header: ['time', 'operation_type', 'path', 'tamper'],
    row: (e: SensorEvent): Row | undefined => e.type === 'regmod' ? [isoMillis(e.ts), REGMOD_CODES[e.action], e.path, e.tamper ?? false] : undefined,
  },
  'csv/modloads.csv': {
    header: ['time', 'md5', 'sha256', 'path'],
    row: (e: SensorEvent): Row | undefined => e.type === 'modload' ? [isoMillis(e.ts), e.md5, e.sha256, e.path] : undefined,
  },
  'csv/netconn.csv': {
    header: ['time', 'direction', 'protocol', 'local_ip', 'local_port', 'remote_ip', 'remote_port', 'domain'],
    row: (e: SensorEvent): Row | undefined => e.type === 'netconn'
      ? [isoMillis(e.ts), e.direction, e.proto, e.local_ip, e.local_port, e.remote_ip, e.remote_port, e.domain] : undefined,
  },
} as const;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvField(value: Row[number]): string {
  const text = value === undefined ? '' : String(value);
  return /[",\r\n]/u.test(text) ? `"${text.replace(/"/gu, '""')}"` : text;
}

function csv(rows: readonly Row[]): string {
  return rows.map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

export function processReport(processDocument: object, summary: object, events: readonly SensorEvent[], mtimeMs: number): Readable {
  const zip = new ZipFile();
  const mtime = new Date(mtimeMs);
  zip.addBuffer(Buffer.from(JSON.stringify(processDocument, null, 2)), 'json/process.json', { mtime });
  zip.addBuffer(Buffer.from(JSON.stringify(summary, null, 2)), 'json/summary.json', { mtime });
  for (const [name, sheet] of Object.entries(SHEETS)) {
    const rows = events.flatMap((event): Row[] => {
      const row = sheet.row(event);
      return row ? [row] : [];
    });
    zip.addBuffer(Buffer.from(csv([[...sheet.header], ...rows])), name, { mtime });
  }
  zip.end();
  return zip.outputStream as Readable;
}
