/**
 * Binary content, content-addressed on disk under <data dir>/binaries/<md5[0..2]>/<md5>. Written
 * to a temporary file and renamed into place, so a crash never leaves a partial file under a
 * hash's name.
 */
import { randomBytes } from 'node:crypto';
import type { ReadStream } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openContent } from '../../db/file-content.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../db/private-files.js';

export class BinaryContentStore {
  constructor(private readonly root: string) {}

  private pathOf(md5: string): string {
    return join(this.root, md5.slice(0, 2), md5);
  }

  async has(md5: string): Promise<boolean> {
    try {
      await stat(this.pathOf(md5));
      return true;
    } catch {
      return false;
    }
  }

  async put(md5: string, content: Buffer): Promise<void> {
    const target = this.pathOf(md5);
    await mkdir(join(this.root, md5.slice(0, 2)), { recursive: true, mode: PRIVATE_DIR_MODE });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, content, { mode: PRIVATE_FILE_MODE });
    await rename(temporary, target);
  }

  /**
   * A stream of the content and its size, or undefined when it was never stored. The file is
   * opened before this resolves, so the stream cannot miss it later; the stream closes it.
   */
  open(md5: string): Promise<{ stream: ReadStream; size: number } | undefined> {
    return openContent(this.pathOf(md5));
  }
}
