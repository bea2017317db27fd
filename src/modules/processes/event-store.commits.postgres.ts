/**
 * Overlapping commits for the PostgreSQL event store, each on a connection of its own, finished in
 * order. A commit is prepared (its reads, then its pass in memory, which encodes every row it will
 * send) while the commit before it sends its rows and commits: Node encodes while PostgreSQL
 * writes, instead of each waiting for the other. Prepares run one at a time, in call order, and
 * so do finishes, so commit N+1 never commits before commit N.
 *
 * A pass builds on the memory the passes before it left (processes, open segments, known terms),
 * so when a commit fails, the memory is forgotten and every commit whose pass ran since that
 * commit's must fail too, though its own writes would succeed: they may name rows that were never
 * committed. Commits prepared after the forgetting read what they need again and are unaffected.
 */
import type pg from 'pg';
import { translatePostgresError } from '../../db/dialects/postgres.js';

/** What a pass leaves to do on the commit's connection, and the commit's answer. */
export interface Pass<T> {
  result: T;
  send(client: pg.PoolClient): Promise<void>;
}

interface Prepared<T> extends Pass<T> {
  client: pg.PoolClient;
}

export class OrderedCommits {
  private preparing: Promise<unknown> = Promise.resolve();
  private finishing: Promise<unknown> = Promise.resolve();
  private ready: Promise<unknown> = Promise.resolve();
  private calls = 0;
  private lastPass = 0;
  /** How many times the memory was forgotten: a read made before it may miss what it dropped. */
  private forgettings = 0;
  /** Commits (by number) whose pass ran on memory a failed commit had changed, with its error. */
  private readonly doomed = new Map<number, unknown>();

  constructor(private readonly pool: pg.Pool, private readonly forget: () => void) {}

  /** Resolves when the last commit's pass has run and the one before it has finished. */
  async readyForNext(): Promise<void> {
    await this.ready;
  }

  /**
   * Runs one commit: `read` (given whether to open the transaction in the same round trip) may
   * run again if the memory is forgotten meanwhile, so it must not change the memory; `pass`
   * applies what it read and does the commit's work in memory, synchronously.
   */
  run<R, T>(read: (client: pg.PoolClient, begin: boolean) => Promise<R>, pass: (read: R) => Pass<T>): Promise<T> {
    const number = ++this.calls;
    const prepared = this.preparing.then(() => this.prepare(number, read, pass));
    this.preparing = prepared.catch(() => undefined);
    const previous = this.finishing;
    const finished = this.finish(number, prepared, previous);
    this.finishing = finished.catch(() => undefined);
    this.ready = Promise.all([this.preparing, previous]);
    return finished;
  }

  private async prepare<R, T>(number: number, read: (client: pg.PoolClient, begin: boolean) => Promise<R>, pass: (read: R) => Pass<T>): Promise<Prepared<T>> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw translatePostgresError(error);
    }
    try {
      let forgettings: number;
      let data: R | undefined;
      do {
        forgettings = this.forgettings;
        data = await read(client, data === undefined);
      } while (forgettings !== this.forgettings);
      this.lastPass = number;
      try {
        return { client, ...pass(data) };
      } catch (error) {
        this.fail(number, error);
        throw error;
      }
    } catch (error) {
      await this.abandon(client);
      throw translatePostgresError(error);
    }
  }

  private async finish<T>(number: number, prepared: Promise<Prepared<T>>, previous: Promise<unknown>): Promise<T> {
    await previous;
    const { client, result, send } = await prepared;
    try {
      if (this.doomed.has(number)) throw this.doomed.get(number);
      await send(client);
      await client.query('COMMIT');
      client.release();
      return result;
    } catch (error) {
      const translated = translatePostgresError(error);
      if (!this.doomed.delete(number)) this.fail(number, translated);
      await this.abandon(client);
      throw translated;
    }
  }

  /** Forgets the memory, and dooms the commits whose pass ran after this one's. */
  private fail(number: number, error: unknown): void {
    this.forget();
    this.forgettings++;
    for (let later = number + 1; later <= this.lastPass; later++) this.doomed.set(later, translatePostgresError(error));
  }

  private async abandon(client: pg.PoolClient): Promise<void> {
    let broken: Error | undefined;
    await client.query('ROLLBACK').catch((failed: Error) => (broken = failed));
    client.release(broken);
  }
}
