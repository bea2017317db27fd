// Loaded into the soak's server with --import: every 10 s each thread appends its view of memory to
// the file VIGIL_MEMORY_PROBE_FILE names (one JSON line: thread, V8 heap used and committed, memory
// outside the heap it accounts for, ArrayBuffers, V8's own malloc), so that the soak can split the
// server's anonymous memory by thread and kind without changing the server. Node 20 runs --import
// in the main thread only: the probe wraps Worker (in every thread: the event writer starts the
// checkpointer's) so that each worker started from a file loads it first, named after its module
// (the soak runs the built server, whose workers all start from files).
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { setInterval } from 'node:timers';
import { URL } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import workerThreads from 'node:worker_threads';

const file = process.env.VIGIL_MEMORY_PROBE_FILE;
const thread = workerThreads.isMainThread ? 'main' : globalThis.vigilProbeThread ?? `worker-${workerThreads.threadId}`;

if (file) {
  setInterval(() => {
    const heap = getHeapStatistics();
    const usage = process.memoryUsage();
    appendFileSync(file, JSON.stringify({
      at_ms: Date.now(), thread, thread_id: workerThreads.threadId, heap_used: heap.used_heap_size, heap_committed: heap.total_heap_size,
      external: usage.external, array_buffers: usage.arrayBuffers, v8_malloced: heap.malloced_memory,
    }) + '\n');
  }, 10_000).unref();
  probeWorkers();
}

function probeWorkers() {
  const probe = import.meta.url;
  const Original = workerThreads.Worker;
  workerThreads.Worker = class ProbedWorker extends Original {
    constructor(entry, options = {}) {
      if (options.eval) {
        super(entry, options);
        return;
      }
      const href = entry instanceof URL ? entry.href : new URL(entry, 'file:///').href;
      const name = href.split('/').at(-1).replace(/\.worker\.js$/, '');
      const start = `globalThis.vigilProbeThread = ${JSON.stringify(name)}; import(${JSON.stringify(probe)}).then(() => import(${JSON.stringify(href)}))`;
      super(start, { ...options, eval: true });
    }
  };
  syncBuiltinESMExports();
}
