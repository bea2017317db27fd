/**
 * The events of an exported Sysmon log, one JSON text per event, whatever the file's shape:
 *
 * - JSON lines (NXLog, Fluent Bit, Vector, Winlogbeat's file output, `evtx_dump -o jsonl`), and
 *   event XML one per line (`Get-WinEvent … | % { $_.ToXml() }`), sent as `{"message": xml}`;
 * - one JSON array (`Get-WinEvent … | ConvertTo-Json`: the records themselves, or `{"Event":…}` documents);
 * - `evtx_dump -o json`: pretty-printed documents, each after a `Record <n>` line.
 *
 * Gzip is recognized by its magic bytes, not the file name; UTF-16 text (what Windows PowerShell's
 * `>` and `Out-File` write) by its byte order mark. Lines are streamed; the two whole-
 * document shapes are read whole. A file that ends early (truncated gzip) throws TruncatedFileError
 * after every event read before the damage was yielded.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';

export class TruncatedFileError extends Error {}

/** The file's text, chunk by chunk; `onBytes` is told how much of the file (as stored) was read. */
async function* textOf(path: string, onBytes: (bytes: number) => void): AsyncGenerator<string> {
  const handle = await open(path, 'r');
  const magic = Buffer.alloc(2);
  await handle.read(magic, 0, 2, 0);
  await handle.close();
  const file = createReadStream(path);
  file.on('data', () => onBytes(file.bytesRead));
  const gzip = magic[0] === 0x1f && magic[1] === 0x8b;
  const source: Readable = gzip ? file.pipe(createGunzip()) : file;
  const decoder = new TextDecoder(utf16Encoding(magic) ?? 'utf-8');
  try {
    for await (const chunk of source) yield decoder.decode(chunk as Buffer, { stream: true });
  } catch (error) {
    throw new TruncatedFileError(`${path} ends early: ${(error as Error).message}`);
  } finally {
    file.destroy();
  }
  yield decoder.decode();
}

/** UTF-16's byte order marks; the decoder drops the mark itself. */
function utf16Encoding(start: Buffer): 'utf-16le' | 'utf-16be' | undefined {
  if (start[0] === 0xff && start[1] === 0xfe) return 'utf-16le';
  if (start[0] === 0xfe && start[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** One JSON text per event. */
export async function* eventTexts(path: string, onBytes: (bytes: number) => void = () => undefined): AsyncGenerator<string> {
  let buffer = '';
  let shape: 'lines' | 'array' | 'records' | undefined;
  const lines = new LineEvents();
  for await (const text of textOf(path, onBytes)) {
    buffer += text;
    shape ??= shapeOf(buffer);
    if (shape !== 'lines') continue;
    const end = buffer.lastIndexOf('\n');
    if (end < 0) continue;
    yield* lines.push(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
  }
  if (shape === 'array') yield* arrayEvents(buffer);
  else if (shape === 'records') yield* recordEvents(buffer);
  else yield* lines.push(buffer, true);
}

function shapeOf(start: string): 'lines' | 'array' | 'records' | undefined {
  const first = /\S/.exec(start);
  if (!first) return undefined;
  if (first[0] === '[') return 'array';
  if (start.startsWith('Record', first.index)) return 'records';
  return 'lines';
}

/**
 * JSON lines, or event XML: one event per line, except that an XML value may hold raw line
 * breaks (a command line, a script block), so an event runs from `<Event` to `</Event>`.
 */
class LineEvents {
  private xml: string | undefined;

  *push(text: string, last = false): Generator<string> {
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (this.xml !== undefined) {
        this.xml += '\n' + raw.replace(/\r$/, '');
      } else if (line.startsWith('<Event')) {
        this.xml = line;
      } else {
        if (line !== '') yield line;
        continue;
      }
      if (this.xml.includes('</Event>')) {
        yield JSON.stringify({ message: this.xml });
        this.xml = undefined;
      }
    }
    // A last event cut off before its end goes as it is, for the server to refuse and count.
    if (last && this.xml !== undefined) yield JSON.stringify({ message: this.xml });
  }
}

/** An array that does not parse is sent as one line, for the server to refuse and count. */
function* arrayEvents(text: string): Generator<string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    yield text.replace(/\s*\n\s*/g, ' ');
    return;
  }
  for (const item of Array.isArray(parsed) ? parsed : [parsed]) yield JSON.stringify(item);
}

function* recordEvents(text: string): Generator<string> {
  for (const part of text.split(/^Record \d+\s*$/m)) {
    if (part.trim() !== '') yield part.trim().replace(/\s*\n\s*/g, ' ');
  }
}
