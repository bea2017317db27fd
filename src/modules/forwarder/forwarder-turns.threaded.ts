/**
 * The forwarder's thread as the runner uses it (forwarder-turns.worker.ts). The thread starts
 * with the first turn, so that a server without outputs, and every test app, runs none.
 */
import { WorkerClient } from '../../db/worker-threads.js';
import type { OutputRecord } from './forwarder.store.js';
import type { ForwarderThreadInit, TurnReply, TurnRequest } from './forwarder-turns.worker.js';

/** What the runner asks of the thread that delivers. */
export interface Turns {
  /** One turn over the output's sources: resolves whether anything was read; rejects when a delivery failed. */
  turn(output: OutputRecord): Promise<boolean>;
  /** Closes the output's connection or file; its next turn reads its cursors again. */
  release(outputId: number): Promise<void>;
  /** Ends turns in progress at their next batch. */
  stop(): void;
  close(): Promise<void>;
}

export class ThreadedTurns implements Turns {
  private worker: WorkerClient<TurnRequest, TurnReply> | undefined;

  constructor(private readonly init: ForwarderThreadInit) {}

  async turn(output: OutputRecord): Promise<boolean> {
    this.worker ??= new WorkerClient(import.meta.url, 'forwarder-turns', this.init);
    return (await this.worker.request({ kind: 'turn', output })).readAny!;
  }

  async release(outputId: number): Promise<void> {
    await this.worker?.request({ kind: 'release', outputId });
  }

  stop(): void {
    this.worker?.request({ kind: 'stop' }).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.worker?.close();
    this.worker = undefined;
  }
}
