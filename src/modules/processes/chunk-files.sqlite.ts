/**
 * Where the embedded store keeps event chunks: append-only files, one per partition
 * (`events/partition-<id>.chunks` beside the database), with a row of segment_chunks saying where
 * each chunk is (docs/adr/0011-chunk-files.md). Chunks written before migration 13 stay in
 * segment_events and are read beside the files, in chunk order.
 *
 * The writer stages a commit's chunks in memory and writes them in one call just before the
 * transaction commits, so that a committed row never points past what was written; a rolled-back
 * transaction leaves its bytes behind unreferenced.
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../../db/dialects/sqlite.js';
import { cachedStatement } from '../../db/dialects/sqlite-statements.js';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../db/private-files.js';
import { chunkFilePath } from '../partitions/partition-files.js';
import type { SegmentChunkSource } from './process-detail.store.js';

const FIRST_STAGING_BYTES = 1 << 20;

/** The writer's side: the hot partition's file, appended to once per commit. */
export class ChunkAppender {
  private fd: number | undefined;
  /** Where the next write lands: the file's size when opened, plus what was written since. */
  private end = 0;
  private staging = Buffer.allocUnsafe(FIRST_STAGING_BYTES);
  private staged = 0;

  constructor(private readonly databaseFile: string, private partitionId: number) {}

  /** The byte offset and length `data` will have in the file once the staged chunks are written. */
  stage(data: string): [offset: number, length: number] {
    this.open();
    // UTF-8 takes at most three bytes per UTF-16 code unit.
    this.reserve(data.length * 3);
    const length = this.staging.write(data, this.staged);
    const offset = this.end + this.staged;
    this.staged += length;
    return [offset, length];
  }

  /** The partition whose file later chunks go to. */
  get partition(): number {
    return this.partitionId;
  }

  /** Writes the staged chunks. Call inside the writer's transaction, before it commits. */
  write(): void {
    if (this.staged === 0) return;
    const fd = this.open();
    for (let written = 0; written < this.staged;) {
      written += writeSync(fd, this.staging, written, this.staged - written, this.end + written);
    }
    this.end += this.staged;
    this.staged = 0;
  }

  /** Forgets the staged chunks after a rollback; a failed write may have left part of them, so the end is read again. */
  discard(): void {
    this.staged = 0;
    if (this.fd !== undefined) this.end = fstatSync(this.fd).size;
  }

  /** Chunks staged from now on go to partition `partitionId`'s file. */
  switchTo(partitionId: number): void {
    this.close();
    this.partitionId = partitionId;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.staged = 0;
  }

  private open(): number {
    if (this.fd === undefined) {
      const path = chunkFilePath(this.databaseFile, this.partitionId);
      makePrivateDir(dirname(path));
      this.fd = openSync(path, 'a', PRIVATE_FILE_MODE);
      this.end = fstatSync(this.fd).size;
    }
    return this.fd;
  }

  private reserve(bytes: number): void {
    if (this.staged + bytes <= this.staging.length) return;
    const larger = Buffer.allocUnsafe(Math.max(this.staging.length * 2, this.staged + bytes));
    this.staging.copy(larger, 0, 0, this.staged);
    this.staging = larger;
  }
}

/** A segment's stored chunk: inline (written before migration 13) or a place in a partition's file. */
type ChunkRow = [data: string | Buffer | null, fileId: number | null, offset: number | null, length: number | null];

const CHUNKS_OF_SEGMENT = `SELECT data, file_id, byte_offset, byte_length FROM (
    SELECT chunk, data, NULL AS file_id, NULL AS byte_offset, NULL AS byte_length FROM segment_events WHERE segment_row = @row
    UNION ALL
    SELECT chunk, NULL, file_id, byte_offset, byte_length FROM segment_chunks WHERE segment_row = @row
  ) ORDER BY chunk`;

/**
 * The chunks of each segment row given, in chunk order, read on `connection`'s thread. A chunk
 * whose bytes are not all in its file (a partition deleted meanwhile, or a power loss that kept
 * the row but not the bytes: docs/adr/0011-chunk-files.md) is left out.
 */
export function readSegmentChunks(connection: Database.Database, segmentRows: readonly number[]): (string | Buffer)[][] {
  const statement = cachedStatement(connection, CHUNKS_OF_SEGMENT).raw();
  const files = new ChunkFileReader(connection.name);
  try {
    return segmentRows.map((row) => {
      const chunks: (string | Buffer)[] = [];
      for (const [data, fileId, offset, length] of statement.all({ row }) as ChunkRow[]) {
        const chunk = data ?? files.read(fileId!, offset!, length!);
        if (chunk !== undefined) chunks.push(chunk);
      }
      return chunks;
    });
  } finally {
    files.close();
  }
}

/** The embedded store's chunks, read on the connection's thread (a few small reads from the page cache). */
export function sqliteSegmentChunks(db: SqliteDatabase): SegmentChunkSource {
  return { read: async (segmentRows) => readSegmentChunks(db.connection, segmentRows) };
}

/** Open chunk files for one read, closed together after it. */
export class ChunkFileReader {
  private readonly open = new Map<number, number | undefined>();

  constructor(private readonly databaseFile: string) {}

  read(fileId: number, offset: number, length: number): Buffer | undefined {
    const bytes = this.readUpTo(fileId, offset, length);
    return bytes?.length === length ? bytes : undefined;
  }

  /** Up to `length` bytes from `offset`: fewer where the file ends sooner; undefined when the file is gone. */
  readUpTo(fileId: number, offset: number, length: number): Buffer | undefined {
    const fd = this.fd(fileId);
    if (fd === undefined) return undefined;
    const bytes = Buffer.allocUnsafe(length);
    let read = 0;
    for (let n = -1; read < length && n !== 0; read += n) n = readSync(fd, bytes, read, length - read, offset + read);
    return bytes.subarray(0, read);
  }

  close(): void {
    for (const fd of this.open.values()) if (fd !== undefined) closeSync(fd);
    this.open.clear();
  }

  private fd(fileId: number): number | undefined {
    if (!this.open.has(fileId)) {
      let fd: number | undefined;
      try {
        fd = openSync(chunkFilePath(this.databaseFile, fileId), 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      this.open.set(fileId, fd);
    }
    return this.open.get(fileId);
  }
}
