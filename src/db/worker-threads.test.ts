/**
 * A worker started with a heap limit runs under it (ADR 0039): V8 in that thread enforces the old
 * generation's limit asked for (plus its young generation), not Node's default of a quarter of the
 * machine's memory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HeapLimitReply } from '../../test/support/heap-limit.worker.js';
import { WorkerClient } from './worker-threads.js';

const SUPPORT = new URL('../../test/support/', import.meta.url).href;
const MB = 2 ** 20;

async function heapLimit(heapLimitMb: number | undefined): Promise<{ enforced: number; reported: number | undefined }> {
  const client = new WorkerClient<{ id: number; kind: string }, HeapLimitReply>(SUPPORT, 'heap-limit', {}, { heapLimitMb });
  try {
    const reply = await client.request({ kind: 'limit' });
    return { enforced: reply.heapSizeLimit! / MB, reported: client.heapLimitMb };
  } finally {
    await client.close();
  }
}

describe('worker heap limits', () => {
  it('starts a worker under the old-generation limit asked for', async () => {
    const limited = await heapLimit(96);
    assert.equal(limited.reported, 96);
    // heap_size_limit is the old generation's limit plus the young generation's (48 MB at most).
    assert.ok(limited.enforced >= 96 && limited.enforced <= 96 + 64, `enforced ${limited.enforced} MB`);
  });

  it('leaves Node\'s default when none is asked for', async () => {
    const unlimited = await heapLimit(undefined);
    assert.ok(unlimited.enforced > 96 + 64, `enforced ${unlimited.enforced} MB`);
  });
});
