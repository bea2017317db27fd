/**
 * Binary content, content-addressed on disk under <data dir>/binaries/<md5[0..2]>/<md5>. Content
 * streams to a staging file under incoming/ and is renamed into place once verified, so a crash
 * never leaves a partial file under a hash's name.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { openContent } from '../../db/file-content.js';
import { PRIVATE_DIR_MODE } from '../../db/private-files.js';
import type { Readable } from 'node:stream';

/** Where binaries' content is kept: files under the data dir (embedded store) or the database (binary-content.postgres.ts). */
export interface BinaryContent {
  has(md5: string): Promise<boolean>;
  /** A new local path for content on its way in; it is verified there before adopt keeps it. */
  stagingPath(): Promise<string>;
  /** Makes a complete staged file the content of md5; the staged file is gone afterwards. */
  adopt(md5: string, stagedPath: string): Promise<void>;
  /** Removes a staged file that was not adopted (nothing if it was). */
  discard(stagedPath: string): Promise<void>;
  /** A stream of the content and its size, or undefined when it was never stored. */
  open(md5: string): Promise<{ stream: Readable; size: number } | undefined>;
}

export class BinaryContentStore implements BinaryContent {
  /** The staging directory, made at the first upload: a recursive mkdir per upload was a measurable share of small uploads' cost. */
  private incoming: Promise<string> | undefined;

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

  /** A new path for content on its way in, on the same disk as the store so adopting it is a rename. */
  async stagingPath(): Promise<string> {
    this.incoming ??= this.makeIncoming();
    return join(await this.incoming, `${randomBytes(8).toString('hex')}.tmp`);
  }

  private async makeIncoming(): Promise<string> {
    const incoming = join(this.root, 'incoming');
    try {
      await mkdir(incoming, { recursive: true, mode: PRIVATE_DIR_MODE });
      return incoming;
    } catch (error) {
      // Not kept: the next upload tries again.
      this.incoming = undefined;
      throw error;
    }
  }

  /** Makes a complete staged file the content of md5. */
  async adopt(md5: string, stagedPath: string): Promise<void> {
    await mkdir(join(this.root, md5.slice(0, 2)), { recursive: true, mode: PRIVATE_DIR_MODE });
    await rename(stagedPath, this.pathOf(md5));
  }

  /** Removes a staged file that was not adopted (nothing if it was). */
  async discard(stagedPath: string): Promise<void> {
    await rm(stagedPath, { force: true });
  }

  /**
   * A stream of the content and its size, or undefined when it was never stored. The file is
   * opened before this resolves, so the stream cannot miss it later; the stream closes it.
   */
  open(md5: string): Promise<{ stream: Readable; size: number } | undefined> {
    return openContent(this.pathOf(md5));
  }
}
