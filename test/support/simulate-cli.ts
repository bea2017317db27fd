/** `vigil simulate …` and other `vigil` commands run from the source in a child process. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** Asynchronous, so that the server answering the simulator can run in the test's own process. */
export function vigilSimulate(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return vigil(['simulate', ...args]);
}

export function vigil(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}
