/** The `vigil` command as a newcomer runs it: the compiled bin in a child process (build first). */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/vigil.js', import.meta.url));

export interface Server {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `vigil serve` on a free port and resolves once it logs where it listens; `env` adds VIGIL_* settings. */
export function startServer(args: string[], env: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { env: { ...process.env, ...env } });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    // A server that does not start in time is stopped: left running, it would hold the test file open forever.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within a minute:\n${output}`));
    }, 60_000);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /"url":"(https?:\/\/[^"]+)".*Vigil is listening/.exec(output);
      if (listening) {
        clearTimeout(timer);
        resolve({ child, url: listening[1]!, output: () => output, exited });
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}
