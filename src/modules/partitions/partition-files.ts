/**
 * Where each partition's event chunks live on disk beside the embedded database (layout in
 * docs/adr/0011-chunk-files.md). The names belong to partitions because a partition's lifecycle
 * (create, report size, delete) is what needs them; the processes module's chunk reader and
 * writer (processes/chunk-files.sqlite.ts) open the files these name.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The directory of the chunk files of the database in `databaseFile`. */
export function chunkDirectory(databaseFile: string): string {
  return join(dirname(databaseFile), 'events');
}

/** The chunk file of partition `partitionId` of the database in `databaseFile`. */
export function chunkFilePath(databaseFile: string, partitionId: number): string {
  return join(chunkDirectory(databaseFile), `partition-${partitionId}.chunks`);
}

/** Removes a deleted partition's chunk file (nothing if it has none). */
export function removeChunkFile(databaseFile: string, partitionId: number): void {
  rmSync(chunkFilePath(databaseFile, partitionId), { force: true });
}
