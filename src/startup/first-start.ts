/**
 * What a newcomer sees when `vigil serve` starts on a new data dir: the first administrator's API
 * token, and how to put data into the server.
 *
 * The token goes to stdout only when stdout is a terminal: under a service manager stdout is the
 * service log, which is kept, shipped and read by people who must not hold an admin token.
 * Otherwise it is written to a file only the data dir's owner can read, and the log says where.
 * The analyst console's URL is logged at every start (main.ts); the terminal message names it
 * too, first among the next steps, since it is where a newcomer with the token goes.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import { PRIVATE_FILE_MODE } from '../db/private-files.js';
import { BOOTSTRAP_ADMIN } from '../modules/users/users.service.js';

export const ADMIN_TOKEN_FILE = 'admin-token.txt';

export interface FirstStart {
  adminToken: string;
  /** Where the server listens, as Fastify reports it. */
  url: string;
  dataDir: string;
  /** Whether the analyst console is built and served at `/`. */
  consoleServed: boolean;
}

export function announceFirstStart(start: FirstStart, out: NodeJS.WritableStream, log: FastifyBaseLogger): void {
  const url = reachableUrl(start.url);
  if ((out as NodeJS.WriteStream).isTTY === true) {
    out.write(
      `\nCreated the global administrator "${BOOTSTRAP_ADMIN}". Its API token, shown this once ` +
        `(\`vigil token ${BOOTSTRAP_ADMIN}\` prints it again):\n\n    ${start.adminToken}\n` +
        `\nNext steps:\n${consoleStep(url, start.consoleServed)}` +
        `  Feed it five simulated endpoints (Windows, Linux and macOS, 100 processes each):\n\n` +
        `    ${simulateCommand(url, start.adminToken)}\n\n` +
        '  (inside a checkout of Vigil: npx vigil simulate ...). Then list them, as cbapi or curl would:\n\n' +
        `    curl -k -H "X-Auth-Token: ${start.adminToken}" ${url}/api/v1/sensor\n\n`,
    );
    return;
  }
  const file = resolve(start.dataDir, ADMIN_TOKEN_FILE);
  // A file left by an earlier start that failed later is replaced, not reused with its old mode.
  rmSync(file, { force: true });
  writeFileSync(file, start.adminToken + '\n', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  log.warn(
    { file },
    `created the global administrator "${BOOTSTRAP_ADMIN}"; stdout is not a terminal, so its API token was written ` +
      `to ${file} (readable by this user only): read it, then delete the file (\`vigil token ${BOOTSTRAP_ADMIN}\` prints it again)`,
  );
  // Kept to the log's one JSON object a line: a person reading the service log finds the command there.
  const next = simulateCommand(url, `$(cat '${file}')`);
  log.info({ next }, `next step: feed it five simulated endpoints: ${next}`);
  if (start.consoleServed) log.info({ console: `${url}/` }, `next step: open the analyst console at ${url}/ and sign in with the token in ${file}`);
}

function consoleStep(url: string, served: boolean): string {
  return served
    ? `  Open the analyst console at ${url}/ and sign in with the token above.\n\n`
    : `  The analyst console is not built: run \`npm run build\`, restart, and open ${url}/.\n\n`;
}

/** `token`: the token itself, or the shell words that read it. */
function simulateCommand(url: string, token: string): string {
  return `vigil simulate --server ${url} --token "${token}" --sensors 5 --processes 100`;
}

/** A server listening on every address is reached from its own host on loopback. */
function reachableUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.hostname === '0.0.0.0') parsed.hostname = '127.0.0.1';
  else if (parsed.hostname === '[::]') parsed.hostname = '[::1]';
  return parsed.origin;
}
