/**
 * PostgreSQL's LISTEN/NOTIFY, for news one Vigil server must give the others at once (a command
 * finished: docs/adr/0022-jobs-across-servers.md). A listener keeps a connection of its own,
 * outside the pool, since LISTEN belongs to a session; when that connection drops it reconnects,
 * and what was notified meanwhile is lost: whoever waits on a notice must also poll, slowly.
 */
import pg from 'pg';
import type { PostgresDatabase } from './postgres.js';

export interface Listening {
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Pause before reconnecting a dropped listener. */
  reconnectMs?: number;
  onError?: (error: unknown) => void;
}

/** Sends `payload` to every session listening on `channel`, this one's included, once `db`'s statement commits. */
export async function notify(db: PostgresDatabase, channel: string, payload: string): Promise<void> {
  await db.run('SELECT pg_notify(?, ?)', [channel, payload]);
}

/** Calls `onPayload` with each notice on `channel` (a fixed name, not user input), until closed. */
export async function listen(db: PostgresDatabase, channel: string, onPayload: (payload: string) => void, options: ListenOptions = {}): Promise<Listening> {
  const reconnectMs = options.reconnectMs ?? 1_000;
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ ...db.pool.options, application_name: `${db.pool.options.application_name ?? 'vigil'} listener` });
    next.on('notification', (message) => onPayload(message.payload ?? ''));
    next.on('error', (error) => {
      options.onError?.(error);
      reconnectSoon(next);
    });
    next.on('end', () => reconnectSoon(next));
    client = next;
    await next.connect();
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
  };
  const reconnectSoon = (dropped: pg.Client) => {
    if (closed || client !== dropped || retry) return;
    client = undefined;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((error: unknown) => {
        options.onError?.(error);
        if (client) reconnectSoon(client);
      });
    }, reconnectMs);
    retry.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
