/**
 * A file output: one record per line, appended and synced per batch. The file is rotated, as
 * cb-event-forwarder rotates its outfile, when it would pass `rotateBytes` or is older than
 * `rotateMs`: it is renamed to `<path>.<UTC time>` and a new file begun.
 */
import { mkdir, open, rename, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { encodeRecord, type ForwardFormat, type Forwardable } from '../forwarder-format.js';
import { BatchBytes } from './batch-bytes.js';
import type { ForwardOutput } from './output.js';

export interface FileOutputSettings {
  path: string;
  rotateBytes: number;
  rotateMs: number;
}

export class FileOutput implements ForwardOutput {
  private file: FileHandle | undefined;
  private size = 0;
  private openedMs = 0;
  private readonly batch = new BatchBytes();

  constructor(private readonly settings: FileOutputSettings, private readonly format: ForwardFormat, private readonly now: () => number = Date.now) {}

  async send(records: readonly Forwardable[], ready?: Promise<void>): Promise<void> {
    if (records.length === 0) return;
    const batch = this.batch.reset();
    for (const record of records) batch.appendLine(encodeRecord(record, this.format));
    const text = batch.bytes();
    await ready;
    const bytes = text.length;
    let file = await this.current();
    if (this.size > 0 && (this.size + bytes > this.settings.rotateBytes || this.now() - this.openedMs >= this.settings.rotateMs)) {
      await this.rotate();
      file = await this.current();
    }
    await file.write(text);
    await file.datasync();
    this.size += bytes;
  }

  async close(): Promise<void> {
    await this.file?.close();
    this.file = undefined;
  }

  private async current(): Promise<FileHandle> {
    if (this.file !== undefined) return this.file;
    await mkdir(dirname(this.settings.path), { recursive: true });
    const file = await open(this.settings.path, 'a', 0o600);
    const info = await stat(this.settings.path);
    this.file = file;
    this.size = info.size;
    // A file kept from before a restart is as old as its last change made it.
    this.openedMs = info.size > 0 ? Math.min(info.birthtimeMs || info.mtimeMs, this.now()) : this.now();
    return file;
  }

  private async rotate(): Promise<void> {
    await this.close();
    const stamp = new Date(this.now()).toISOString().replace(/[:.]/g, '-');
    await rename(this.settings.path, `${this.settings.path}.${stamp}`);
  }
}
