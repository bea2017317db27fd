// Loaded into the soak's server with --import: every 10 s it appends the main thread's view of
// memory (process.memoryUsage and V8's heap spaces) to the file VIGIL_MEMORY_PROBE_FILE names, so
// that the soak can split the server's RSS by component without changing the server.
import { appendFileSync } from 'node:fs';
import { setInterval } from 'node:timers';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.VIGIL_MEMORY_PROBE_FILE;
if (file) {
  setInterval(() => {
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
    appendFileSync(file, JSON.stringify({ at_ms: Date.now(), ...process.memoryUsage(), spaces }) + '\n');
  }, 10_000).unref();
}
