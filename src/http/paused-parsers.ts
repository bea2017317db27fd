/**
 * Keeps kept-alive uploads from being cut off by Node's own HTTP server (Node 20).
 *
 * When a request arrives on a connection whose previous response has not yet drained (any reply
 * over the socket's 16 KiB high-water mark, such as a `_bulk` answer of a few hundred items), the
 * server pauses the connection and its parser until the response drains. But it reads the socket
 * in C++ ("consumed"), and that reader goes on feeding the paused parser: the parser fails with
 * HPE_PAUSED, the server takes it for a parse error and destroys the socket in the middle of the
 * upload, with nothing logged. The client sees ECONNRESET or "socket hang up" and sends the body
 * again: under bench/sysmon's load that was about two bodies a second, each read twice.
 *
 * A `data` listener on the socket makes the server read it in JavaScript instead, where the pause
 * holds: the rest of the body waits in the socket until the response has drained. Plain HTTP
 * connections pause as they should (their reads stop), so only TLS ones are read this way.
 */
import type { Server as HttpServer } from 'node:http';
import { Server as TlsServer, type TLSSocket } from 'node:tls';

const ignore = (): void => undefined;

export function readTlsConnectionsInJs(server: HttpServer | TlsServer): void {
  if (!(server instanceof TlsServer)) return;
  // Registered after the HTTP server's own listener, which must have wrapped the socket first.
  server.on('secureConnection', (socket: TLSSocket) => socket.on('data', ignore));
}
