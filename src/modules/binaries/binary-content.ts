/**
 * Binary content, content-addressed on disk under <data dir>/binaries/<md5[0..2]>/<md5>. Written
 * to a temporary file and renamed into place, so a crash never leaves a partial file under a
 * hash's name.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

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
    await mkdir(join(this.root, md5.slice(0, 2)), { recursive: true });
    const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, content);
    await rename(temporary, target);
  }

  /** The content, or undefined when it was never stored. */
  async get(md5: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(md5));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}
