/**
 * Sysmon ingest: a shipper's or importer's body of events, sent with a group's ingest key,
 * becomes Sysmon events decoded at the edge (src/ingest/sysmon/) and stored per host through the
 * ordinary ingest pipeline, each host being a sensor of the key's group (sysmon-hosts.ts).
 * Nothing here knows HTTP; bodies arrive as bytes with their Content-Encoding.
 */
import { LRUCache } from 'lru-cache';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import { decompress } from '../../ingest/decode.js';
import type { HandedOverBulk, HandedOverSlice } from '../../ingest/sysmon/bulk-hand-over.js';
import type { ReadBulk } from '../../ingest/sysmon/bulk-read.js';
import type { SysmonBinary } from '../../ingest/sysmon/sysmon-binaries.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import { SysmonDecoder, type SysmonHost } from '../../ingest/sysmon/sysmon-decoder.js';
import { jsonLines } from '../../ingest/sysmon/sysmon-lines.js';
import { bulkReply, type ItemOutcome, type ReplyShape } from './bulk-reply.js';
import type { BulkReaders } from './bulk-readers.js';
import type { IngestKeyIdentity } from '../../domain/ingest-key.js';
import type { IngestPipeline } from '../../ingest/pipeline.js';
import { SysmonBatch, type SysmonSink } from './sysmon-batch.js';
import type { SysmonHosts } from './sysmon-hosts.js';
import type { SysmonHostsStore } from './sysmon-hosts.store.js';
import type { SysmonIngestReply } from './sysmon-ingest.schemas.js';

/** Where the files Sysmon saw are recorded (the binaries module, metadata without content). */
export interface BinaryRecorder {
  seen(sensor: SensorIdentity, metadata: readonly SysmonBinary[]): Promise<void>;
}

/** Host and file pairs recorded already, so a host's usual DLLs are written once, not per batch. */
const BINARIES_REMEMBERED = 500_000;

export class SysmonIngestService implements SysmonSink {
  /** One for the server's life: it remembers Security 4688 starts for their 4689 exits. */
  private readonly decoder = new SysmonDecoder();
  private readonly binariesRecorded = new LRUCache<string, true>({ max: BINARIES_REMEMBERED });
  /** Refs of batches handed to the event writer and not yet written: dropped if their request ends without. */
  private readonly unwritten = new Set<string>();

  constructor(
    private readonly pipeline: Pick<IngestPipeline, 'append' | 'appendHandedOver' | 'takesHandedOver' | 'dropHandedOver'>,
    private readonly hosts: SysmonHosts,
    private readonly batches: SysmonHostsStore,
    private readonly binaries: BinaryRecorder,
    private readonly maxDecodedBytes: number,
    private readonly readers: BulkReaders,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A body of JSON lines (gzip allowed), one event per line. `digest`: the sender's name for this
   * exact batch; a batch whose digest was stored before in the group stores nothing again.
   */
  async ingestLines(key: IngestKeyIdentity, raw: Buffer, contentEncoding: string | undefined, digest: string | undefined): Promise<SysmonIngestReply> {
    if (digest !== undefined && (await this.batches.batchStored(key.groupId, digest))) return duplicateReply();
    const text = await decompress(raw, contentEncoding?.trim().toLowerCase(), this.maxDecodedBytes);
    const batch = new SysmonBatch(this.decoder, this.now());
    for (const line of jsonLines(text)) {
      if ('malformed' in line) batch.refuse(line.line, 'malformed_line', line.malformed);
      else batch.add(line.line, line.record);
    }
    const reply = await batch.commit(key.groupId, this);
    if (digest !== undefined) await this.batches.recordBatch(key.groupId, digest, this.now());
    return reply;
  }

  /**
   * An Elasticsearch `_bulk` body (gzip allowed) from Winlogbeat, Elastic Agent or Vector,
   * answered item by item as Elasticsearch does, as JSON text. `index`: the one the URL named, if any.
   */
  async ingestBulk(key: IngestKeyIdentity, raw: Buffer, contentEncoding: string | undefined, index: string | undefined, shape: ReplyShape = 'full'): Promise<string> {
    const started = this.now();
    const handOver = this.readers.handOver && (await this.pipeline.takesHandedOver());
    const { digest, items, handedOver } = await this.readers.read(raw, contentEncoding, started, handOver);
    const refs = Object.values(handedOver ?? {}).flatMap((slices) => slices.map((slice) => slice.ref));
    for (const ref of refs) this.unwritten.add(ref);
    try {
      return await this.settleBulk(key, items, digest, handedOver, started, index, shape);
    } finally {
      const dropped = refs.filter((ref) => this.unwritten.delete(ref));
      if (dropped.length > 0) await this.pipeline.dropHandedOver(dropped);
    }
  }

  private async settleBulk(
    key: IngestKeyIdentity, items: ReadBulk['items'], digest: string, handedOver: HandedOverBulk['handedOver'], started: number, index: string | undefined, shape: ReplyShape,
  ): Promise<string> {
    // Beats send a batch again, byte for byte, when an answer was lost: stored once all the same.
    const duplicate = await this.batches.batchStored(key.groupId, digest);
    const batch = new SysmonBatch(this.decoder, started);
    const outcomes: ItemOutcome[] = [];
    for (const { head, more, ...item } of items) {
      if (duplicate) {
        outcomes.push({ head, more, reason: 'already_stored', detail: 'this bulk body was stored before' });
      } else if ('refused' in item) {
        batch.refuse(head.line, 'malformed_line', item.refused);
        outcomes.push({ head, reason: 'malformed_line', detail: item.refused });
      } else {
        const skip = batch.settle(head.line, item.decoded, more);
        outcomes.push({ head, more, reason: skip?.reason, detail: skip?.detail ?? '' });
      }
    }
    if (!duplicate) {
      if (handedOver) batch.handedOver(handedOver);
      await batch.commit(key.groupId, this);
      await this.batches.recordBatch(key.groupId, digest, this.now());
    }
    return bulkReply(outcomes, index ?? 'sysmon', this.now() - started, shape);
  }

  /** SysmonSink: a slice of one host's events, already with the event writer, stored under its sensor. */
  storeHandedOver(groupId: number, host: SysmonHost, slice: HandedOverSlice, counters: Map<string, number>) {
    const rejected = Object.values(slice.rejected).reduce((sum, count) => sum + count, 0);
    return this.storeFor(groupId, host, async (sensor, nextSequence) => {
      this.unwritten.delete(slice.ref);
      return { ...(await this.pipeline.appendHandedOver(sensor, slice, counters, nextSequence)), rejected };
    });
  }

  /** SysmonSink: the files a host's events named, recorded as binaries seen on its sensor. */
  async binariesSeen(sensorId: number, binaries: readonly SysmonBinary[]): Promise<void> {
    const sensor = this.hosts.known(sensorId);
    if (sensor === undefined) return;
    const unseen = binaries.filter((binary) => !this.binariesRecorded.get(`${sensorId}:${binary.md5}`));
    await this.binaries.seen(sensor.identity, unseen);
    for (const binary of unseen) this.binariesRecorded.set(`${sensorId}:${binary.md5}`, true);
  }

  /** SysmonSink: one host's events, stored under its sensor. */
  store(groupId: number, host: SysmonHost, events: SensorEvent[], counters: Map<string, number>) {
    return this.storeFor(groupId, host, async (sensor, nextSequence) => {
      const outcome = await this.pipeline.append(sensor, events, counters, nextSequence);
      return { ...outcome, rejected: outcome.rejected.length };
    });
  }

  /** Events of the host, stored by `append` under its sensor (created on first sight), which then shows online. */
  private async storeFor(
    groupId: number, host: SysmonHost, append: (sensor: SensorIdentity, nextSequence: () => number) => Promise<{ accepted: number; filtered: number; rejected: number }>,
  ) {
    const nowMs = this.now();
    const sensor = await this.hosts.sensorFor(groupId, host, nowMs);
    const outcome = await append(sensor.identity, () => this.hosts.nextSequence(sensor));
    await this.hosts.seen(sensor, nowMs);
    return { sensorId: sensor.identity.id, accepted: outcome.accepted, filtered: outcome.filtered, rejected: outcome.rejected };
  }
}

function duplicateReply(): SysmonIngestReply {
  return { duplicate: true, read: 0, stored: 0, skipped: {}, events: { accepted: 0, filtered: 0, rejected: 0 }, hosts: [], errors: [] };
}
