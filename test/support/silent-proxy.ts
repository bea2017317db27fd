/**
 * A TCP proxy in front of a server that can go silent: its connections stay open but nothing
 * passes any more in either direction, and new connections are taken but never reach the server,
 * as when a network partition or a failover leaves a client with sockets that no one answers.
 * Nothing is refused or reset, so only the client's own time limits can find out.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface SilentProxy {
  port: number;
  /** From now on nothing passes, on open connections or new ones. */
  silence(): void;
  /** New connections reach the server again; the ones silenced stay dead. */
  restore(): void;
  close(): Promise<void>;
}

export async function startSilentProxy(target: { host: string; port: number }): Promise<SilentProxy> {
  let silent = false;
  const sockets = new Set<Socket>();
  /** The relays of the connections open now: silencing ends each for good. */
  const relays = new Set<{ dead: boolean }>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    track(client);
    if (silent) return;
    const upstream = connect(target.port, target.host);
    track(upstream);
    const relay = { dead: false };
    relays.add(relay);
    client.on('data', (chunk) => relay.dead || upstream.write(chunk));
    upstream.on('data', (chunk) => relay.dead || client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => {
      relays.delete(relay);
      client.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    silence() {
      silent = true;
      for (const relay of relays) relay.dead = true;
    },
    restore: () => void (silent = false),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
