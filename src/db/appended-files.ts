/**
 * Syncs the files of a directory that were appended to since this object last synced them (the
 * event chunk files: ADR 0011). A checkpoint makes database pages durable that point into those
 * files, so the bytes they point at must be durable first, or a power loss could leave rows
 * pointing at nothing.
 */
import { closeSync, fdatasyncSync, openSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export class AppendedFiles {
  /** Per file, its size when last synced: the files are only ever appended to. */
  private readonly synced = new Map<string, number>();

  constructor(private readonly directory: string) {}

  /** Only the hot partition's file has changed, normally. */
  syncChanged(): void {
    let names: string[];
    try {
      names = readdirSync(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const name of names) {
      const path = join(this.directory, name);
      const size = statSync(path, { throwIfNoEntry: false })?.size;
      if (size === undefined || this.synced.get(path) === size) continue;
      const fd = openSync(path, 'r');
      try {
        fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
      this.synced.set(path, size);
    }
  }
}
