/**
 * Live memory, not garbage the collector has yet to reach: decoded pieces die young but large
 * strings and buffers wait for a full collection, which would blur what an upload holds.
 * Collected twice, because V8 frees dead buffers' memory on a background thread after a
 * collection and the next collection waits for that to finish: after one, up to 20 MB of dead
 * buffers were still counted, at random.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

export function liveMemory(): number {
  collect();
  collect();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/**
 * Runs `work` while sampling live memory every `everyMs` (each sample collects the whole heap
 * twice: too often, and work on a loaded machine barely runs); answers its result and the peak
 * growth over the memory before it, in MB.
 */
export async function peakGrowthDuring<T>(everyMs: number, work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const baseline = liveMemory();
  let peak = baseline;
  const sampler = setInterval(() => { peak = Math.max(peak, liveMemory()); }, everyMs);
  try {
    const result = await work();
    return { result, growthMb: (peak - baseline) / 2 ** 20 };
  } finally {
    clearInterval(sampler);
  }
}
