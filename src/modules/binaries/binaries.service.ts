/**
 * Binaries as sensors upload them: content verified against its hashes and stored by MD5,
 * metadata and observations recorded. (The analyst side, summaries and downloads, builds on this.)
 */
import { createHash } from 'node:crypto';
import { DomainError } from '../../domain/errors.js';
import type { BinaryUpload } from '../sensors/sensor-protocol.schemas.js';
import type { SensorIdentity } from '../sensors/sensors.service.js';
import type { BinaryContentStore } from './binary-content.js';
import type { BinariesStore } from './binaries.store.js';

export class BinariesService {
  constructor(
    private readonly store: BinariesStore,
    private readonly content: BinaryContentStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the server holds this binary's content (so a sensor may skip sending it). */
  async hasContent(md5: string): Promise<boolean> {
    return this.content.has(md5.toLowerCase());
  }

  async upload(sensor: SensorIdentity, upload: BinaryUpload): Promise<{ md5: string; stored: boolean }> {
    const { metadata } = upload;
    const md5 = metadata.md5.toLowerCase();
    let storedSize: number | undefined;
    if (upload.content !== undefined) {
      const bytes = Buffer.from(upload.content, 'base64');
      verify(bytes, metadata);
      await this.content.put(md5, bytes);
      storedSize = bytes.length;
    }
    await this.store.record(metadata, storedSize, sensor.id, this.now());
    return { md5, stored: storedSize !== undefined || (await this.content.has(md5)) };
  }
}

function verify(bytes: Buffer, metadata: BinaryUpload['metadata']): void {
  const md5 = createHash('md5').update(bytes).digest('hex');
  if (md5 !== metadata.md5.toLowerCase()) mismatch(`content has md5 ${md5}, not ${metadata.md5}`);
  if (metadata.sha256 !== undefined) {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== metadata.sha256.toLowerCase()) mismatch(`content has sha256 ${sha256}, not ${metadata.sha256}`);
  }
  if (bytes.length !== metadata.size) mismatch(`content is ${bytes.length} bytes, not ${metadata.size}`);
}

function mismatch(message: string): never {
  throw new DomainError('invalid_request', message, 'content_mismatch');
}
