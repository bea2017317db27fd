/**
 * Live-response file content kept in the database, in pieces of at most LIVE_RESPONSE_PIECE_BYTES, so that
 * every server on the database reads what a sensor sent through any of them (issue 18 point 5,
 * docs/adr/0022-jobs-across-servers.md). Content streams in piece by piece, so a memory dump is
 * never held whole; a file with any piece has content (an empty file has one empty piece).
 *
 * The file's size in live_response_files, written once `put` has returned, is what says its
 * content is complete (the services read nothing before it); a `put` that fails removes what it
 * wrote. Pieces go when their file row does (ON DELETE CASCADE).
 */
import { Readable } from 'node:stream';
import type { SqlDatabase } from '../../db/database.js';
import { ContentTooLargeError, type LiveResponseContent } from './live-response-files.js';

/** Exported for vigil migrate-store, which writes embedded files in the same pieces. */
export const LIVE_RESPONSE_PIECE_BYTES = 1024 * 1024;

export class SqlLiveResponseContent implements LiveResponseContent {
  constructor(
    private readonly db: SqlDatabase,
    private readonly limitBytes: number,
  ) {}

  async put(fileId: number, content: Readable): Promise<number> {
    await this.remove([fileId]);
    let size = 0;
    let piece = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      await this.db.run('INSERT INTO live_response_file_pieces (file_id, piece, data) VALUES (?, ?, ?)', [fileId, piece++, Buffer.concat(pending)]);
      pending = [];
      pendingBytes = 0;
    };
    try {
      for await (const chunk of content) {
        const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
        size += bytes.length;
        if (size > this.limitBytes) throw new ContentTooLargeError(`more than ${this.limitBytes} bytes`);
        for (let at = 0; at < bytes.length;) {
          const taken = bytes.subarray(at, at + LIVE_RESPONSE_PIECE_BYTES - pendingBytes);
          pending.push(taken);
          pendingBytes += taken.length;
          at += taken.length;
          if (pendingBytes === LIVE_RESPONSE_PIECE_BYTES) await flush();
        }
      }
      if (pendingBytes > 0 || piece === 0) await flush();
    } catch (error) {
      content.destroy();
      await this.remove([fileId]);
      throw error;
    }
    return size;
  }

  async open(fileId: number): Promise<{ stream: Readable; size: number } | undefined> {
    const found = await this.db.get<{ pieces: number; size: number | null }>(
      'SELECT COUNT(*) AS pieces, SUM(LENGTH(data)) AS size FROM live_response_file_pieces WHERE file_id = ?', [fileId],
    );
    if (!found || found.pieces === 0) return undefined;
    const db = this.db;
    async function* pieces() {
      for (let piece = 0; piece < found!.pieces; piece++) {
        const row = await db.get<{ data: Buffer }>('SELECT data FROM live_response_file_pieces WHERE file_id = ? AND piece = ?', [fileId, piece]);
        if (row) yield row.data;
      }
    }
    return { stream: Readable.from(pieces()), size: Number(found.size ?? 0) };
  }

  async remove(fileIds: readonly number[]): Promise<void> {
    for (const fileId of fileIds) await this.db.run('DELETE FROM live_response_file_pieces WHERE file_id = ?', [fileId]);
  }
}
