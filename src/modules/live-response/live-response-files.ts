/**
 * Where the content of live-response files is kept. On disk, for the embedded store: under
 * <data dir>/live-response/<file id>; content streams in (a memory dump may be large) to a
 * temporary file that is renamed into place once complete, so a file id never names a partial
 * file. In the database, where several servers share it (live-response-content.sql.ts).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { openContent } from '../../db/file-content.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../db/private-files.js';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The content was larger than the limit; nothing was kept. */
export class ContentTooLargeError extends Error {}

/** Where live-response files' content is kept: files under the data dir (embedded store) or the database (live-response-content.sql.ts). */
export interface LiveResponseContent {
  /** Stores the stream's bytes as the file's content and answers their count; ContentTooLargeError past the limit. */
  put(fileId: number, content: Readable): Promise<number>;
  /** A stream of the content and its size, or undefined when there is none. */
  open(fileId: number): Promise<{ stream: Readable; size: number } | undefined>;
  remove(fileIds: readonly number[]): Promise<void>;
}

/** Counts the bytes passing through, failing with ContentTooLargeError past the limit. */
export function limitedTo(limit: number, counted: (size: number) => void): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      counted(size);
      done(size > limit ? new ContentTooLargeError(`more than ${limit} bytes`) : null, chunk);
    },
  });
}

export class LiveResponseFiles implements LiveResponseContent {
  constructor(
    private readonly root: string,
    private readonly limitBytes: number,
  ) {}

  private pathOf(fileId: number): string {
    return join(this.root, String(fileId));
  }

  /** Stores the stream's bytes as the file's content and answers their count; ContentTooLargeError past the limit. */
  async put(fileId: number, content: Readable): Promise<number> {
    await mkdir(this.root, { recursive: true, mode: PRIVATE_DIR_MODE });
    const target = this.pathOf(fileId);
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    let size = 0;
    const counter = limitedTo(this.limitBytes, (counted) => (size = counted));
    try {
      await pipeline(content, counter, createWriteStream(temporary, { mode: PRIVATE_FILE_MODE }));
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return size;
  }

  /** A stream of the content and its size, or undefined when there is none; the stream closes the file. */
  open(fileId: number): Promise<{ stream: Readable; size: number } | undefined> {
    return openContent(this.pathOf(fileId));
  }

  async remove(fileIds: readonly number[]): Promise<void> {
    await Promise.all(fileIds.map((id) => rm(this.pathOf(id), { force: true })));
  }
}
