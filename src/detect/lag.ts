/**
 * How long after a commit its hits were recorded: the time from the first commit a live run
 * covers to the end of that run (an upper bound for every hit in it). Kept as a bounded sample
 * for percentiles.
 */
const KEPT = 10_000;

export interface LagStats {
  runs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export class LagRecorder {
  private samples: number[] = [];
  private runs = 0;
  private max = 0;

  record(ms: number): void {
    this.runs++;
    this.max = Math.max(this.max, ms);
    if (this.samples.length >= KEPT) this.samples[this.runs % KEPT] = ms;
    else this.samples.push(ms);
  }

  stats(): LagStats {
    const sorted = [...this.samples].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return { runs: this.runs, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: this.max };
  }
}
