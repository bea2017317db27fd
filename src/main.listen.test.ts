/**
 * `vigil serve`'s listen backlog (config listenBacklog): the connections the kernel completes for
 * the server while its event loop is busy elsewhere. Past the backlog a client's handshake is
 * dropped and retried only after 1, 3, 7… s, which is how a fleet's check-ins came to take tens of
 * seconds behind a server that was merely busy for a moment (issue 22 point 5).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '../test/support/temp.js';
import { loadConfig } from './config/load.js';
import { serve } from './main.js';
import { CapturedOutput } from '../test/support/captured-output.js';

/** More than Node's default backlog of 511, fewer than the kernel's usual cap (somaxconn 4096). */
const CONNECTIONS = 1200;

/**
 * Opens CONNECTIONS connections to the port from another process while this one's event loop is
 * held (spawnSync), so the server accepts none of them, and counts those the kernel completed.
 */
function connectionsCompletedWhileBusy(port: number): number {
  const script = `
    const net = require('node:net');
    let connected = 0;
    const sockets = [];
    for (let i = 0; i < ${CONNECTIONS}; i++) {
      const socket = net.connect(${port}, '127.0.0.1', () => connected++);
      socket.on('error', () => undefined);
      sockets.push(socket);
    }
    // Well within the first SYN retry (1 s): a dropped handshake has not come back yet.
    setTimeout(() => { console.log(connected); for (const s of sockets) s.destroy(); }, 700);
  `;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  return Number(child.stdout.trim());
}

describe('vigil serve listen backlog', () => {
  const root = tempDir();
  after(() => rmSync(root, { recursive: true, force: true }));

  it('holds a burst of connections beyond Node\'s 511 while the request thread is busy, instead of dropping their handshakes', async () => {
    const server = await serve(loadConfig({ dataDir: join(root, 'backlog'), port: 0, logLevel: 'silent', tls: false }), new CapturedOutput(false));
    try {
      const completed = connectionsCompletedWhileBusy(Number(new URL(server.url).port));
      assert.equal(completed, CONNECTIONS, `${completed} of ${CONNECTIONS} connections completed`);
    } finally {
      await server.shutdown();
    }
  });
});
