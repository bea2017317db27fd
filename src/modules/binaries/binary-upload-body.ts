/**
 * The body of a binary upload, `{"metadata": {…}, "content": "<base64>"}` (docs/sensor-protocol.md),
 * read as it arrives: the content string is decoded to a staging file and hashed on the way, so a
 * 100 MB binary never sits in memory; the rest of the JSON (the metadata, bounded) is parsed as
 * usual, with the content left out, and validated by the route's schema.
 *
 * The scan only follows JSON's structure (strings, escapes, depth) to find the top-level "content"
 * member; JSON.parse of what remains is still the judge of syntax. Structural characters are
 * ASCII, so multi-byte UTF-8 in the metadata never looks like one.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import secureJson from 'secure-json-parse';
import { PRIVATE_FILE_MODE } from '../../db/private-files.js';
import { DomainError, InvalidRequestError } from '../../domain/errors.js';

export interface StagedContent {
  path: string;
  md5: string;
  sha256: string;
  size: number;
}

export interface UploadBodyLimits {
  /** The whole body as sent. */
  bodyBytes: number;
  /** Everything but the content (the metadata, icon included). */
  otherBytes: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BASE64 = /^[A-Za-z0-9+/=_-]*$/;
const PIECE_BYTES = 16 * 1024;
const SLASH = Buffer.from('/');

type Mode = 'json' | 'awaiting-content' | 'content';

class ContentWriter {
  private readonly md5 = createHash('md5');
  private readonly sha256 = createHash('sha256');
  private readonly file;
  /** Base64 characters short of a whole group of 4, carried to the next chunk. */
  private pending = '';
  private size = 0;

  constructor(readonly path: string) {
    this.file = createWriteStream(path, { flags: 'wx', mode: PRIVATE_FILE_MODE });
    this.file.on('error', () => undefined);
  }

  /** Base64 text, in pieces small enough to die young: large strings go straight to the old generation. */
  async add(text: Buffer): Promise<void> {
    for (let at = 0; at < text.length; at += PIECE_BYTES) {
      const chars = this.pending + text.toString('latin1', at, Math.min(at + PIECE_BYTES, text.length));
      if (!BASE64.test(chars)) throw new InvalidRequestError('content: not base64');
      const whole = chars.length - (chars.length % 4);
      if (whole > 0) await this.write(Buffer.from(chars.slice(0, whole), 'base64'));
      this.pending = chars.slice(whole);
    }
  }

  async finish(): Promise<StagedContent> {
    await this.write(Buffer.from(this.pending, 'base64'));
    this.file.end();
    await once(this.file, 'finish');
    return { path: this.path, md5: this.md5.digest('hex'), sha256: this.sha256.digest('hex'), size: this.size };
  }

  abort(): void {
    this.file.destroy();
  }

  private async write(bytes: Buffer): Promise<void> {
    this.md5.update(bytes);
    this.sha256.update(bytes);
    this.size += bytes.length;
    if (!this.file.write(bytes)) await once(this.file, 'drain');
  }
}

/**
 * Reads the body; `stagingPath` names the file the content goes to (created only if the body has
 * content). On any error the caller removes that file.
 */
export async function readBinaryUploadBody(
  payload: Readable, stagingPath: string, limits: UploadBodyLimits,
): Promise<{ body: unknown; staged: StagedContent | undefined }> {
  const rest: Buffer[] = [];
  let restBytes = 0;
  let received = 0;
  let mode: Mode = 'json';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let key: number[] | undefined;
  let lastKey = '';
  let content: ContentWriter | undefined;
  let staged: StagedContent | undefined;

  const keep = (bytes: Buffer) => {
    restBytes += bytes.length;
    if (restBytes > limits.otherBytes) throw new DomainError('payload_too_large', `The metadata is more than ${limits.otherBytes} bytes`);
    rest.push(bytes);
  };

  try {
    for await (const chunk of payload as AsyncIterable<Buffer>) {
      received += chunk.length;
      if (received > limits.bodyBytes) throw new DomainError('payload_too_large', `The body is more than ${limits.bodyBytes} bytes`);
      let from = 0;
      for (let i = 0; i < chunk.length; i += 1) {
        const byte = chunk[i]!;
        if (mode === 'content') {
          if (escaped) {
            escaped = false;
            // JSON may escape "/" (a base64 character) and break lines; nothing else belongs in base64.
            if (byte === 0x2f) await content!.add(SLASH);
            else if (byte !== 0x6e && byte !== 0x72) throw new InvalidRequestError('content: not base64');
            from = i + 1;
          } else if (byte === BACKSLASH || byte === QUOTE) {
            await content!.add(chunk.subarray(from, i));
            from = i + 1;
            if (byte === BACKSLASH) escaped = true;
            else {
              staged = await content!.finish();
              mode = 'json';
            }
          }
          continue;
        }
        if (inString) {
          if (escaped) escaped = false;
          else if (byte === BACKSLASH) escaped = true;
          else if (byte === QUOTE) {
            inString = false;
            if (key) lastKey = Buffer.from(key).toString('utf8');
            key = undefined;
          } else if (key && key.length < 64) key.push(byte);
          continue;
        }
        if (mode === 'awaiting-content' && byte > 0x20) {
          if (byte !== QUOTE) mode = 'json';
          else {
            if (content) throw new InvalidRequestError('content: given twice');
            keep(chunk.subarray(from, i));
            keep(Buffer.from('null'));
            content = new ContentWriter(stagingPath);
            mode = 'content';
            from = i + 1;
            continue;
          }
        }
        if (byte === QUOTE) {
          inString = true;
          key = depth === 1 ? [] : undefined;
        } else if (byte === 0x7b || byte === 0x5b) depth += 1;
        else if (byte === 0x7d || byte === 0x5d) depth -= 1;
        else if (byte === 0x3a && depth === 1 && lastKey === 'content') mode = 'awaiting-content';
        else if (byte === 0x2c) lastKey = '';
      }
      if (mode === 'content') await content!.add(chunk.subarray(from));
      else keep(chunk.subarray(from));
    }
    if (mode === 'content') throw new InvalidRequestError('Body is not valid JSON: the content string never ends');
    return { body: parseRest(Buffer.concat(rest).toString('utf8'), staged !== undefined), staged };
  } catch (error) {
    content?.abort();
    throw error;
  }
}

function parseRest(text: string, streamed: boolean): Record<string, unknown> {
  let body: unknown;
  try {
    body = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    throw new InvalidRequestError(`Body is not valid JSON: ${(error as Error).message}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidRequestError('Body is not a JSON object');
  const object = body as Record<string, unknown>;
  // The content was streamed to its file; the placeholder left in its place is not the body's.
  if (streamed) delete object.content;
  return object;
}
