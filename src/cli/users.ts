/** `vigil token`, `vigil user add` and `vigil user passwd`: act on the configured database directly, as its owner. */
import type { Config } from '../config/schema.js';
import { openShellUsers } from '../wiring/shell-users.js';
import { readNewPassword, readPasswordFromStdin } from './password-input.js';

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

/** Sets a user's password for console login; their open console sessions end with the old one. */
export async function setPassword(config: Config, username: string): Promise<void> {
  const password = await readNewPassword(`New password for ${username}: `);
  const shell = await openShellUsers(config);
  try {
    await shell.users.setPasswordFromShell(username, password);
    process.stdout.write(`Password of ${username} set; their console sessions, if any, have ended.\n`);
  } finally {
    await shell.close();
  }
}
