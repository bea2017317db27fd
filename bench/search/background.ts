/**
 * What runs beside a search bench: the background ingest in a process of its own (ingest-load.ts),
 * and an idle Node process measuring its own event loop, the stalls the machine itself imposes
 * (two shared cores), to read the server's figure against.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface IngestLoadOptions {
  server: string;
  token: string;
  /** Events per second asked for. */
  rate: number;
  sensors: number;
  /** Events per upload, when not ingest-load.ts's default. */
  batch?: string | undefined;
}

/** Starts the ingest and resolves once its sensors are registered; stop() answers the events per second it achieved. */
export async function startIngestLoad(options: IngestLoadOptions): Promise<{ stop: () => Promise<number> }> {
  const child = spawn(process.execPath, [
    '--import', 'tsx', fileURLToPath(new URL('./ingest-load.ts', import.meta.url)),
    '--server', options.server, '--token', options.token, '--rate', String(options.rate), '--sensors', String(options.sensors),
    ...(options.batch === undefined ? [] : ['--batch', options.batch]),
  ], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready\n')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`ingest load exited (${code})`)));
  });
  return {
    async stop() {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      const report = JSON.parse(output.trim().split('\n').at(-1)!) as { acknowledged: number; seconds: number };
      return report.acknowledged / report.seconds;
    },
  };
}

/** Starts the idle probe; stop() answers its largest event-loop stall in ms. */
export function startNoiseProbe(): { stop: () => Promise<number> } {
  const script = `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 }); h.enable();
    setInterval(() => {}, 1000); process.on('SIGTERM', () => { console.log(h.max / 1e6); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    async stop() {
      const exited = new Promise((resolve) => child.on('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      return Number(output.trim());
    },
  };
}
