/**
 * Binaries' content on PostgreSQL (table binary_content), so that a binary uploaded through one
 * server downloads from any. An upload still streams to a local staging file, where it is hashed
 * and checked; only a verified file is read into the database, and the staging file goes.
 */
import { readFile, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { BinaryContentStore, type BinaryContent } from './binary-content.js';

export class PostgresBinaryContent implements BinaryContent {
  /** The staging side only: files on their way in, under the given local directory. */
  private readonly staging: BinaryContentStore;

  constructor(private readonly db: PostgresDatabase, stagingRoot: string) {
    this.staging = new BinaryContentStore(stagingRoot);
  }

  async has(md5: string): Promise<boolean> {
    return (await this.db.get('SELECT 1 AS found FROM binary_content WHERE md5 = ?', [md5])) !== undefined;
  }

  stagingPath(): Promise<string> {
    return this.staging.stagingPath();
  }

  async adopt(md5: string, stagedPath: string): Promise<void> {
    try {
      await this.db.run('INSERT INTO binary_content (md5, content) VALUES (?, ?) ON CONFLICT (md5) DO NOTHING', [md5, await readFile(stagedPath)]);
    } finally {
      await rm(stagedPath, { force: true });
    }
  }

  discard(stagedPath: string): Promise<void> {
    return this.staging.discard(stagedPath);
  }

  async open(md5: string): Promise<{ stream: Readable; size: number } | undefined> {
    const row = await this.db.get<{ content: Buffer }>('SELECT content FROM binary_content WHERE md5 = ?', [md5]);
    return row && { stream: Readable.from([row.content]), size: row.content.length };
  }
}
