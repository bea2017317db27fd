/**
 * Command notices between the servers on one PostgreSQL database: a server that records a
 * command's answer notifies the channel, and every server's listener wakes its own waiters
 * (command-waiters.ts, docs/adr/0022-jobs-across-servers.md).
 */
import type { PostgresDatabase } from '../../db/dialects/postgres.js';
import { listen, notify, type Listening } from '../../db/dialects/postgres-listener.js';
import type { CommandNotices, CommandWaiters } from './command-waiters.js';

export const COMMAND_FINISHED_CHANNEL = 'vigil_command_finished';

export class PostgresCommandNotices implements CommandNotices {
  constructor(private readonly db: PostgresDatabase) {}

  publish(commandId: number): Promise<void> {
    return notify(this.db, COMMAND_FINISHED_CHANNEL, String(commandId));
  }

  /** Wakes `waiters` at each notice from any server, until closed. */
  listenFor(waiters: CommandWaiters, onError?: (error: unknown) => void): Promise<Listening> {
    return listen(this.db, COMMAND_FINISHED_CHANNEL, (payload) => {
      const commandId = Number(payload);
      if (Number.isSafeInteger(commandId)) waiters.finished(commandId);
    }, { onError });
  }
}
