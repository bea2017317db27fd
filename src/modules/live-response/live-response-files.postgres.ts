/**
 * Live-response files' content on PostgreSQL (table live_response_content), so that the sensor
 * and the analyst may each reach any server. The content is gathered in memory up to the file
 * limit and written in one statement; a file past the limit is refused and nothing is kept.
 */
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { limitedTo, type LiveResponseContent } from './live-response-files.js';

export class PostgresLiveResponseFiles implements LiveResponseContent {
  constructor(private readonly db: PostgresDatabase, private readonly limitBytes: number) {}

  async put(fileId: number, content: Readable): Promise<number> {
    const chunks: Buffer[] = [];
    let size = 0;
    const gather = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    await pipeline(content, limitedTo(this.limitBytes, (counted) => (size = counted)), gather);
    await this.db.run(
      'INSERT INTO live_response_content (file_id, content) VALUES (?, ?) ON CONFLICT (file_id) DO UPDATE SET content = excluded.content',
      [fileId, Buffer.concat(chunks, size)],
    );
    return size;
  }

  async open(fileId: number): Promise<{ stream: Readable; size: number } | undefined> {
    const row = await this.db.get<{ content: Buffer }>('SELECT content FROM live_response_content WHERE file_id = ?', [fileId]);
    return row && { stream: Readable.from([row.content]), size: row.content.length };
  }

  async remove(fileIds: readonly number[]): Promise<void> {
    if (fileIds.length === 0) return;
    await this.db.run(`DELETE FROM live_response_content WHERE file_id IN (${fileIds.map(() => '?').join(', ')})`, fileIds);
  }
}
