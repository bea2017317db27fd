/**
 * Binaries: as sensors upload them (content verified against its hashes and stored by MD5,
 * metadata and observations recorded), and as analysts read them (summary, download, icon).
 *
 * Visibility: a global admin sees every binary; anyone else sees a binary once it was observed
 * on a sensor in a group they may view, and then only those observations (its endpoints, groups,
 * host count, filenames and last-seen time). A binary nobody visible to the caller observed is a
 * 404, as an unknown one is, so its existence does not leak.
 */
import type { Readable } from 'node:stream';
import { hasPngSignature } from 'fast-png';
import type { BinaryTagsSource } from '../../detect/document-tags.js';
import { DomainError, NotFoundError } from '../../domain/errors.js';
import { canViewGroup, type Principal } from '../../domain/permissions.js';
import type { BinaryMetadata } from './binary-upload.schemas.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { binaryArchive } from './binary-archive.js';
import type { BinaryContent } from './binary-content.js';
import type { StagedContent } from './binary-upload-body.js';
import { binarySummary } from './binary-summary.js';
import type { BinariesStore, BinaryObservation, BinaryRecord } from './binaries.store.js';
import type { BinarySummary } from './binaries.schemas.js';
import { DEFAULT_ICON_PNG } from './default-icon.js';

const MD5 = /^[0-9a-f]{32}$/i;

export class BinariesService {
  constructor(
    private readonly store: BinariesStore,
    private readonly content: BinaryContent,
    private readonly tags: BinaryTagsSource = async () => new Map(),
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the server holds this binary's content (so a sensor may skip sending it). */
  async hasContent(md5: string): Promise<boolean> {
    return this.content.has(md5.toLowerCase());
  }

  /** Records an upload; its content, if sent, was staged by the route (binary-upload-body.ts) and is verified here. */
  async upload(sensor: SensorIdentity, metadata: BinaryMetadata, content: StagedContent | undefined): Promise<{ md5: string; stored: boolean }> {
    const md5 = metadata.md5.toLowerCase();
    if (metadata.icon !== undefined && !hasPngSignature(Buffer.from(metadata.icon, 'base64'))) {
      throw new DomainError('invalid_request', 'metadata.icon is not a base64 PNG', 'invalid_icon');
    }
    if (content) {
      verify(content, metadata);
      await this.content.adopt(md5, content.path);
    }
    await this.store.record(metadata, content?.size, sensor.id, this.now());
    return { md5, stored: content !== undefined || (await this.content.has(md5)) };
  }

  /** Files a sensor saw, known by their metadata only (Sysmon hosts' process images and loaded modules). */
  async seen(sensor: SensorIdentity, metadata: readonly BinaryMetadata[]): Promise<void> {
    await this.store.recordSeen(metadata, sensor.id, this.now());
  }

  /** Where a route stages uploaded content. */
  stagingPath(): Promise<string> {
    return this.content.stagingPath();
  }

  /** Drops staged content that was not adopted (a refused upload). */
  discardStaged(path: string): Promise<void> {
    return this.content.discard(path);
  }

  async summary(actor: Principal, md5: string): Promise<BinarySummary> {
    const { record, observations } = await this.visible(actor, md5);
    const tags = await this.tags([record.md5]);
    return binarySummary(record, observations, iconOf(record), tags.get(record.md5));
  }

  /** The zip of content and metadata; 404 while the server holds no content. */
  async download(actor: Principal, md5: string): Promise<Readable> {
    const { record } = await this.visible(actor, md5);
    const content = record.storedSize > 0 ? await this.content.open(record.md5) : undefined;
    if (!content) throw new NotFoundError(`The content of binary ${md5} was not uploaded`);
    return binaryArchive(content, { timestampMs: record.firstSeenMs, origFilename: record.metadata.observed_filename });
  }

  /** The sensor's icon, or the default icon when it sent none. */
  async icon(actor: Principal, md5: string): Promise<Buffer> {
    return iconOf((await this.visible(actor, md5)).record);
  }

  private async visible(actor: Principal, md5: string): Promise<{ record: BinaryRecord; observations: BinaryObservation[] }> {
    const record = MD5.test(md5) ? await this.store.get(md5.toLowerCase()) : undefined;
    if (record) {
      const all = await this.store.observations(record.md5);
      const observations = actor.globalAdmin ? all : all.filter((o) => o.sensor && canViewGroup(actor, o.sensor.groupId));
      if (observations.length > 0) return { record, observations };
    }
    throw new NotFoundError(`No binary with md5 ${md5}`);
  }
}

function iconOf(record: BinaryRecord): Buffer {
  const { icon } = record.metadata;
  return icon === undefined ? DEFAULT_ICON_PNG : Buffer.from(icon, 'base64');
}

function verify(content: StagedContent, metadata: BinaryMetadata): void {
  if (content.md5 !== metadata.md5.toLowerCase()) mismatch(`content has md5 ${content.md5}, not ${metadata.md5}`);
  if (metadata.sha256 !== undefined && content.sha256 !== metadata.sha256.toLowerCase()) {
    mismatch(`content has sha256 ${content.sha256}, not ${metadata.sha256}`);
  }
  if (content.size !== metadata.size) mismatch(`content is ${content.size} bytes, not ${metadata.size}`);
}

function mismatch(message: string): never {
  throw new DomainError('invalid_request', message, 'content_mismatch');
}
