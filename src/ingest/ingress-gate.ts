/**
 * The ingress-filter stage as the event store sees it: a process is judged once, when its start
 * is seen (with what it inherits from its parent), and each of its events then passes or is
 * dropped by that judgement.
 */
import type { SensorEvent } from './event.schemas.js';
import type { CompiledIngressFilter, EventFilterValue } from './ingress-filter.js';
import type { ProcessCounts } from './ingress-filter-metrics.js';

export interface GateScope {
  sensorId: number;
  groupId: number;
  osType: 'windows' | 'osx' | 'linux';
}

export interface GateProcessFacts {
  path: string;
  cmdline: string;
  md5: string;
}

/** What the filters decided about one process; opaque outside the gate. */
export interface GateVerdict {
  readonly kind: 'filtered';
}

export interface IngressGate {
  /** The verdict on a newly started process, or undefined when no filter concerns it. */
  judgeProcess(scope: GateScope, facts: GateProcessFacts, parent: GateVerdict | undefined): GateVerdict | undefined;
  /** Whether an event of a process with this verdict is dropped. */
  dropsEvent(verdict: GateVerdict, event: SensorEvent): boolean;
}

interface Applied {
  filter: CompiledIngressFilter;
  /** Generations of descendants still covered: -1 all, 0 this process only. */
  remaining: number;
}

interface FilterVerdict extends GateVerdict {
  applied: readonly Applied[];
}

/**
 * The gate over the compiled ingress filters (ingress-filter.ts). The pipeline hands it the
 * current filters before each batch (`use`), since the event store judges synchronously inside
 * its transaction.
 */
export class FilterGate implements IngressGate {
  private filters: readonly CompiledIngressFilter[] = [];
  /** New processes each filter measured, and matched, since the last takeCounts (for hit_rate). */
  private counts = new Map<string, ProcessCounts>();

  use(filters: readonly CompiledIngressFilter[]): void {
    this.filters = filters;
  }

  takeCounts(): ReadonlyMap<string, ProcessCounts> {
    const counts = this.counts;
    this.counts = new Map();
    return counts;
  }

  judgeProcess(scope: GateScope, facts: GateProcessFacts, parent: GateVerdict | undefined): GateVerdict | undefined {
    const applied: Applied[] = [];
    for (const filter of this.filters) {
      if (!filter.measures(scope)) continue;
      const matched = filter.matchesProcess(facts);
      this.count(filter.id, matched);
      if (matched && filter.appliesTo(scope)) applied.push({ filter, remaining: filter.descendantLevel });
    }
    for (const inherited of (parent as FilterVerdict | undefined)?.applied ?? []) {
      if (inherited.remaining !== 0 && !applied.some((a) => a.filter === inherited.filter)) {
        applied.push({ filter: inherited.filter, remaining: inherited.remaining > 0 ? inherited.remaining - 1 : -1 });
      }
    }
    if (applied.length === 0) return undefined;
    const verdict: FilterVerdict = { kind: 'filtered', applied };
    return verdict;
  }

  private count(filterId: string, matched: boolean): void {
    let counts = this.counts.get(filterId);
    if (!counts) this.counts.set(filterId, (counts = { processes: 0, hits: 0 }));
    counts.processes++;
    if (matched) counts.hits++;
  }

  dropsEvent(verdict: GateVerdict, event: SensorEvent): boolean {
    return (verdict as FilterVerdict).applied.some(({ filter }) => filter.dropsEvent(event.type, event as EventFilterValue));
  }
}
