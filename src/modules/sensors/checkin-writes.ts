/**
 * Check-ins' writes to the sensor rows, many to one transaction (group commit): a fleet of 10,000
 * sensors checks in some 300 times a second, and one transaction each meant a lock, a commit and,
 * under ingest, a wait behind the event writer each (issue 22 point 5). A check-in's write starts
 * at once when none is under way; those that arrive meanwhile go together in the next. Every write
 * is the one it was alone (SensorsStore.checkin), state changes included, in the order recorded.
 *
 * A caller may wait for its own commit or not (SensorsService decides which check-ins need to: ADR
 * 0037). `written()` waits for every write recorded before it, for readers that must see them;
 * `unwritten()` gives the unwaited ones not yet committed, for a reader that must not wait
 * (the sensor list) to show them over the rows it reads.
 */
import type { CheckinFacts, SensorRecord, SensorsStore } from './sensors.store.js';

interface Waiting {
  id: number;
  facts: CheckinFacts;
  resolve: (recorded: boolean) => void;
  reject: (error: unknown) => void;
}

/** A batch larger than this waits for the next transaction: one transaction must not hold the write lock for long. */
const MOST_CHECKINS_PER_TRANSACTION = 500;
/**
 * How long a check-in nobody waits for waits for others before its transaction starts: without
 * it, on an idle lock each heartbeat was a transaction of its own (a commit each), which cost
 * more CPU per check-in than waiting for every write had.
 */
const UNWAITED_GATHER_MS = 50;

export class CheckinWrites {
  private waiting: Waiting[] = [];
  private writing = false;
  /** Settles once the check-in recorded last is written or failed, and so every one before it. */
  private last: Promise<unknown> = Promise.resolve();
  /** Set while unwaited check-ins wait for company before their write starts. */
  private gathering: NodeJS.Timeout | undefined;
  /** The failure last reported to onUnwaitedFailure: the check-ins of one transaction share it, and it is told once. */
  private reported: unknown;
  /** Each sensor's latest check-in recorded unwaited and not yet settled (committed or failed). */
  private readonly pending = new Map<number, CheckinFacts>();

  constructor(
    private readonly store: Pick<SensorsStore, 'checkin'>,
    private readonly onUnwaitedFailure: (error: unknown) => void = () => undefined,
  ) {}

  /** Records the check-in; false when there is no such sensor. */
  record(id: number, facts: CheckinFacts): Promise<boolean> {
    return this.enqueue(id, facts, true);
  }

  /**
   * Records the check-in with no caller waiting for it. Its write may wait UNWAITED_GATHER_MS for
   * others to share its transaction; a transaction that fails is reported once, whatever it held.
   */
  recordUnwaited(id: number, facts: CheckinFacts): void {
    this.pending.set(id, facts);
    this.enqueue(id, facts, false).then(() => this.settled(id, facts), (error: unknown) => {
      this.settled(id, facts);
      if (error === this.reported) return;
      this.reported = error;
      this.onUnwaitedFailure(error);
    });
  }

  /**
   * The check-ins recorded unwaited and not yet settled, by sensor id. Taken before a read of the
   * rows, it holds every such check-in the read may miss; withUnwritten() lays them over the rows.
   */
  unwritten(): ReadonlyMap<number, CheckinFacts> {
    return new Map(this.pending);
  }

  private settled(id: number, facts: CheckinFacts): void {
    if (this.pending.get(id) === facts) this.pending.delete(id);
  }

  private enqueue(id: number, facts: CheckinFacts, now: boolean): Promise<boolean> {
    const recorded = new Promise<boolean>((resolve, reject) => this.waiting.push({ id, facts, resolve, reject }));
    this.last = recorded.catch(() => undefined);
    if (!this.writing) {
      if (now) this.startWriting();
      else this.gathering ??= setTimeout(() => this.startWriting(), UNWAITED_GATHER_MS);
    }
    return recorded;
  }

  private startWriting(): void {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    if (!this.writing) void this.writeAll();
  }

  /** Settles once every check-in recorded so far is committed (or its transaction failed). */
  async written(): Promise<void> {
    await this.last;
  }

  private async writeAll(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MOST_CHECKINS_PER_TRANSACTION);
        try {
          const recorded = await this.store.checkin(batch);
          batch.forEach((checkin, index) => checkin.resolve(recorded[index]!));
        } catch (error) {
          for (const checkin of batch) checkin.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
  }
}

/**
 * The row as the sensor's unwritten check-in will leave it: its facts over the row's, as
 * SensorsStore.checkin writes them. A row already written by a later check-in is left as it is.
 */
export function withUnwritten(sensor: SensorRecord, facts: CheckinFacts | undefined): SensorRecord {
  if (facts === undefined || (sensor.lastCheckinMs ?? -Infinity) >= facts.lastCheckinMs) return sensor;
  const written = Object.fromEntries(Object.entries(facts).filter(([, value]) => value !== undefined));
  return { ...sensor, ...written };
}
