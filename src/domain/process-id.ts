/**
 * Carbon Black process identifiers (reference core §1.1). A process id packs
 * struct.pack('>IIQ', sensor_id, pid, create_time) as 8-4-4-4-12 hex, create_time being a Windows
 * FILETIME (100 ns ticks since 1601-01-01). A segment's unique_id appends the segment id (server
 * epoch ms) as 12 hex digits. Parents are referenced at segment 1, as 6.x servers do.
 */

/** Milliseconds between 1601-01-01 (FILETIME epoch) and 1970-01-01. */
const FILETIME_EPOCH_OFFSET_MS = 11_644_473_600_000n;

export interface ProcessKey {
  sensorId: number;
  pid: number;
  /** Process start on the sensor's clock, epoch milliseconds. */
  startMs: number;
}

export function toFiletime(epochMs: number): bigint {
  return (BigInt(Math.round(epochMs)) + FILETIME_EPOCH_OFFSET_MS) * 10_000n;
}

export function fromFiletime(filetime: bigint): number {
  return Number(filetime / 10_000n - FILETIME_EPOCH_OFFSET_MS);
}

export function processId({ sensorId, pid, startMs }: ProcessKey): string {
  const hex =
    (sensorId >>> 0).toString(16).padStart(8, '0') +
    (pid >>> 0).toString(16).padStart(8, '0') +
    toFiletime(startMs).toString(16).padStart(16, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const PROCESS_ID = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;

/** The parts of a process id; undefined when the text is not one. */
export function parseProcessId(id: string): ProcessKey | undefined {
  const match = PROCESS_ID.exec(id);
  if (!match) return undefined;
  const hex = match.slice(1).join('');
  return {
    sensorId: parseInt(hex.slice(0, 8), 16),
    pid: parseInt(hex.slice(8, 16), 16),
    startMs: fromFiletime(BigInt('0x' + hex.slice(16))),
  };
}

export function uniqueId(id: string, segmentId: number): string {
  return `${id}-${segmentId.toString(16).padStart(12, '0')}`;
}

/** The id Carbon Black 6.x gives a parent it knows nothing about: pid ffffffff, time 0. */
export function unknownParentId(sensorId: number): string {
  return `${(sensorId >>> 0).toString(16).padStart(8, '0')}-ffff-ffff-0000-000000000000`;
}

/** Parents, children and cross-process targets are referenced at segment 1 (reference core §1.1). */
export const REFERENCE_SEGMENT = 1;
