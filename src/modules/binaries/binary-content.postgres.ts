/**
 * Binaries' content on PostgreSQL, so that a binary uploaded through one server downloads from
 * any. An upload still streams to a local staging file, where it is hashed and checked; a verified
 * file then goes into binary_content_pieces a piece at a time and the staging file goes. Content
 * is never held whole in memory, going in or coming out (four concurrent 100 MB uploads once
 * added some 400 MB).
 *
 * The binary_content row, written after the last piece, is what says the content is complete and
 * how many pieces it has. No transaction is needed: pieces are cut at fixed offsets of content
 * that its md5 names, so servers adopting the same md5 at once write the same bytes to the same
 * keys, and a server that dies mid-way leaves pieces that no row counts, overwritten by the next
 * upload of that md5. (A transaction, SERIALIZABLE here, would make concurrent adoptions of
 * different binaries conflict on the index and rewrite whole files on retry.)
 */
import { open as openFile, rm, type FileHandle } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { BinaryContentStore, type BinaryContent } from './binary-content.js';

/** Exported for vigil migrate-store, which writes embedded files in the same pieces. */
export const BINARY_PIECE_BYTES = 1024 * 1024;

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
    const file = await openFile(stagedPath, 'r');
    try {
      if (await this.has(md5)) return;
      let size = 0;
      let piece = 0;
      for (;;) {
        const data = await readPiece(file, piece);
        // An empty content is one empty piece, as an empty live-response file is.
        if (data.length === 0 && piece > 0) break;
        await this.db.run(
          'INSERT INTO binary_content_pieces (md5, piece, data) VALUES (?, ?, ?) ON CONFLICT (md5, piece) DO UPDATE SET data = EXCLUDED.data',
          [md5, piece++, data],
        );
        size += data.length;
        if (data.length < BINARY_PIECE_BYTES) break;
      }
      await this.db.run('INSERT INTO binary_content (md5, size, pieces) VALUES (?, ?, ?) ON CONFLICT (md5) DO NOTHING', [md5, size, piece]);
    } finally {
      await file.close();
      await rm(stagedPath, { force: true });
    }
  }

  discard(stagedPath: string): Promise<void> {
    return this.staging.discard(stagedPath);
  }

  async open(md5: string): Promise<{ stream: Readable; size: number } | undefined> {
    const found = await this.db.get<{ size: number; pieces: number }>('SELECT size, pieces FROM binary_content WHERE md5 = ?', [md5]);
    if (!found) return undefined;
    const db = this.db;
    async function* pieces() {
      for (let piece = 0; piece < found!.pieces; piece++) {
        const row = await db.get<{ data: Buffer }>('SELECT data FROM binary_content_pieces WHERE md5 = ? AND piece = ?', [md5, piece]);
        if (row) yield row.data;
      }
    }
    return { stream: Readable.from(pieces()), size: found.size };
  }
}

/** The piece'th BINARY_PIECE_BYTES of the file, shorter only at its end. */
async function readPiece(file: FileHandle, piece: number): Promise<Buffer> {
  const buffer = Buffer.alloc(BINARY_PIECE_BYTES);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await file.read(buffer, filled, buffer.length - filled, piece * BINARY_PIECE_BYTES + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
