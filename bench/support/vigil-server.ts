/**
 * `vigil serve` as the end-to-end benchmarks run it: the compiled bin (build first) in a child
 * process on a free port, on the embedded store in `dataDir` or on PostgreSQL at `databaseUrl`,
 * with the admin's API token and the certificate to reach it with.
 */
import { spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/vigil.js', import.meta.url));

export interface VigilServerOptions {
  /** TLS certificate, secret key and (on the embedded store) the database. */
  dataDir: string;
  databaseUrl?: string;
  /** Servers sharing one database share one secret key (another server's data dir's). */
  secretKeyFile?: string;
  /** Node options for the server process, to measure V8 settings end to end. */
  nodeFlags?: string[];
}

export interface VigilServer {
  pid: number;
  url: string;
  /** The server's self-signed certificate, to verify it with. */
  ca: Buffer;
  /** An API token of the global admin, made by `vigil token admin` on the same store. */
  token: string;
  stop(): Promise<void>;
}

export async function startVigilServer(options: VigilServerOptions): Promise<VigilServer> {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), BIN, 'serve', '--port', '0', ...storeArgs(options)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const url = await listeningUrl(child, exited);
    return { pid: child.pid!, url, ca: readFileSync(join(options.dataDir, 'tls', 'cert.pem')), token: adminToken(options), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function storeArgs(options: VigilServerOptions): string[] {
  return [
    '--data-dir', options.dataDir,
    ...(options.databaseUrl ? ['--database-url', options.databaseUrl] : []),
    ...(options.secretKeyFile ? ['--secret-key-file', options.secretKeyFile] : []),
  ];
}

function listeningUrl(child: ChildProcessByStdio<null, Readable, null>, exited: Promise<number | null>): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    let listening = false;
    // Read on after the start too, so the server never blocks on a full pipe; only the start is kept.
    child.stdout.on('data', (chunk: Buffer) => {
      if (listening) return;
      output += chunk.toString();
      const match = /"url":"(https?:\/\/[^"]+)".*Vigil is listening/.exec(output);
      if (match) {
        listening = true;
        resolve(match[1]!);
      }
    });
    void exited.then((code) => reject(new Error(`vigil serve exited ${code}: ${output}`)));
  });
}

function adminToken(options: VigilServerOptions): string {
  const result = spawnSync(process.execPath, [BIN, 'token', 'admin', ...storeArgs(options)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`vigil token admin exited ${result.status}: ${result.stderr}`);
  return result.stdout.trim();
}
