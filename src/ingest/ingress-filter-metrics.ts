/**
 * Each ingress filter's hit rate: the share of new processes in its scope that it matched over
 * the last 15 minutes (cbapi's ingress_filter.yaml: a process rate, not an event rate). Counts
 * arrive from the pipeline in per-batch sums and are kept per minute, in memory: after a restart
 * the rates start again from 0.
 */

/** New processes a filter measured (see CompiledIngressFilter.measures) and how many of them it matched. */
export interface ProcessCounts {
  processes: number;
  hits: number;
}

interface Bucket extends ProcessCounts {
  /** Which minute (epoch ms / bucketMs) the sums belong to. */
  index: number;
}

export class IngressHitRates {
  private readonly buckets = new Map<string, Bucket[]>();
  private readonly bucketCount: number;

  constructor(
    windowMs = 15 * 60_000,
    private readonly bucketMs = 60_000,
  ) {
    this.bucketCount = Math.ceil(windowMs / bucketMs);
  }

  record(counts: ReadonlyMap<string, ProcessCounts>, now = Date.now()): void {
    const index = Math.floor(now / this.bucketMs);
    for (const [filterId, { processes, hits }] of counts) {
      let ring = this.buckets.get(filterId);
      if (!ring) this.buckets.set(filterId, (ring = []));
      const slot = index % this.bucketCount;
      const bucket = ring[slot];
      if (bucket?.index === index) {
        bucket.processes += processes;
        bucket.hits += hits;
      } else {
        ring[slot] = { index, processes, hits };
      }
    }
  }

  /** hits / processes over the window; 0 when the filter measured no process in it. */
  rate(filterId: string, now = Date.now()): number {
    const oldest = Math.floor(now / this.bucketMs) - this.bucketCount + 1;
    let processes = 0;
    let hits = 0;
    for (const bucket of this.buckets.get(filterId) ?? []) {
      if (bucket !== undefined && bucket.index >= oldest) {
        processes += bucket.processes;
        hits += bucket.hits;
      }
    }
    return processes === 0 ? 0 : hits / processes;
  }

  /** Drops a deleted filter's counts, so a new filter given its id starts from 0. */
  forget(filterId: string): void {
    this.buckets.delete(filterId);
  }
}
