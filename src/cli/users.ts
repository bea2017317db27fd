/** `vigil token` and `vigil user add`: act on the configured database directly, as its owner. */
import type { Config } from '../config/schema.js';
import { InvalidRequestError } from '../domain/errors.js';
import { openShellUsers } from '../wiring/shell-users.js';

export async function printToken(config: Config, username: string): Promise<void> {
  const shell = await openShellUsers(config);
  try {
    process.stdout.write((await shell.users.tokenFromShell(username)) + '\n');
  } finally {
    await shell.close();
  }
}

export async function addUser(
  config: Config,
  user: { username: string; globalAdmin: boolean; readPassword: boolean },
): Promise<void> {
  const password = user.readPassword ? await readPasswordFromStdin() : undefined;
  const shell = await openShellUsers(config);
  try {
    const token = await shell.users.addFromShell({ ...user, password });
    process.stdout.write(token + '\n');
  } finally {
    await shell.close();
  }
}

/** The whole of standard input, less one trailing newline (as `echo pw |` sends it). */
async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (password.length === 0) throw new InvalidRequestError('password: standard input was empty');
  return password;
}
