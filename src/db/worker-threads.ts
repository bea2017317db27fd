/**
 * Database work that must not hold the event loop runs on worker threads, each loading a
 * `<name>.worker` module that sits beside the code starting it. Requests and replies pair up by
 * id; a failure in the worker comes back as an Error carrying the driver's message and code.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort, Worker, type ResourceLimits, type TransferListItem } from 'node:worker_threads';
import { DatabaseBusy, DatabaseUnavailable } from './errors.js';

export interface WorkerFailure {
  message: string;
  code: string | undefined;
}

/** What every reply carries besides its payload. */
export interface WorkerReply {
  id: number;
  /** The request failed; nothing of it took effect. */
  error?: WorkerFailure;
}

type Without<R, K extends string> = R extends unknown ? Omit<R, K> : never;

/** Whether this code runs from source (tests, benchmarks, through tsx) or built. */
const FROM_SOURCE = extname(fileURLToPath(import.meta.url)) === '.ts';

/** The URL of module `<name>` beside `base` (an import.meta.url), in the form this build runs. */
export function siblingModule(base: string, name: string): URL {
  return new URL(`./${name}${FROM_SOURCE ? '.ts' : '.js'}`, base);
}

/** How a worker is started besides its data. */
export interface WorkerStart {
  /** What `workerData` hands over rather than copies (a MessagePort must be). */
  transferList?: readonly TransferListItem[];
  /**
   * The most its V8 old generation may hold, in MB (ADR 0039). Past it the thread ends with
   * ERR_WORKER_OUT_OF_MEMORY; below it V8 lets the heap grow less past what is live. Absent:
   * Node's default, a quarter of the machine's memory, under which a busy thread's heap grew to
   * several times what it kept.
   */
  heapLimitMb?: number | undefined;
}

/**
 * Starts the worker module `<name>.worker` beside `siblingUrl` (pass `import.meta.url`). Node
 * loads a worker's entry file before tsx's loader hooks are in place in that thread
 * (privatenumber/tsx#354), so from source the entry is a one-line script that registers tsx and
 * then imports the TypeScript file.
 */
export function startSiblingWorker(siblingUrl: string, name: string, workerData: unknown, start: WorkerStart = {}): Worker {
  const url = siblingModule(siblingUrl, `${name}.worker`);
  const options = {
    workerData, transferList: [...(start.transferList ?? [])],
    resourceLimits: start.heapLimitMb === undefined ? undefined : ({ maxOldGenerationSizeMb: start.heapLimitMb } satisfies ResourceLimits),
  };
  if (!FROM_SOURCE) return new Worker(url, options);
  const entry = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(entry, { ...options, eval: true });
}

/** The calling side of a worker that answers `{ id, kind, … }` requests (see serveRequests). */
export class WorkerClient<Request extends { id: number; kind: string }, Reply extends WorkerReply> {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private failure: Error | undefined;

  constructor(siblingUrl: string, private readonly name: string, workerData: unknown, start: WorkerStart = {}) {
    this.worker = startSiblingWorker(siblingUrl, name, workerData, start);
    this.worker.on('message', (reply: Reply) => {
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (reply.error === undefined) waiting?.resolve(reply);
      else waiting?.reject(rebuild(name, reply.error));
    });
    // A worker that died takes no more work: every pending and later request fails.
    this.worker.on('error', (error) => this.fail(error instanceof Error ? error : new Error(`${name}: ${JSON.stringify(error)}`)));
    this.worker.on('exit', (code) => this.fail(new Error(`the ${name} thread exited (${code})`)));
  }

  /** `transfer`: buffers (or ports) the request hands over to the worker rather than copies. */
  request(request: Without<Request, 'id'>, transfer: readonly TransferListItem[] = []): Promise<Reply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id }, transfer);
    });
  }

  /** The limit of the thread's V8 old generation in force, in MB, as the running thread reports it. */
  get heapLimitMb(): number | undefined {
    return this.worker.resourceLimits?.maxOldGenerationSizeMb;
  }

  /** Sends `close` (the worker closes its connection) and ends the thread. */
  async close(): Promise<void> {
    if (this.failure) return;
    await this.request({ kind: 'close' } as Without<Request, 'id'>);
    await this.worker.terminate();
  }

  private fail(error: Error): void {
    this.failure = error;
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}

/** The worker's side: answers each request with `handle`'s result, or with the error it threw. */
export function serveRequests<Request extends { id: number }, Reply extends WorkerReply>(
  handle: (request: Request) => Promise<Without<Reply, 'id'>>,
): void {
  const port = parentPort!;
  port.on('message', (request: Request) => {
    void handle(request).then(
      (reply) => port.postMessage({ ...reply, id: request.id }),
      (error: unknown) => port.postMessage({ id: request.id, error: describe(error) } satisfies WorkerReply),
    );
  });
}

const BUSY = 'SQLITE_BUSY';
/** Not a driver's code: marks a database out of reach (PostgreSQL), which the caller answers 503 too. */
const UNAVAILABLE = 'VIGIL_DATABASE_UNAVAILABLE';

/** Driver errors (SqliteError) do not survive the trip between threads as themselves. */
function describe(error: unknown): WorkerFailure {
  if (error instanceof DatabaseBusy) return { message: error.message, code: BUSY };
  if (error instanceof DatabaseUnavailable) return { message: error.message, code: UNAVAILABLE };
  const { message, code } = error as { message?: unknown; code?: unknown };
  return { message: String(message ?? error), code: typeof code === 'string' ? code : undefined };
}

/** The worker's failure on this side: a busy or unreachable database still answers 503, not 500. */
function rebuild(name: string, failure: WorkerFailure): Error {
  const error = Object.assign(new Error(`${name}: ${failure.message}`), { code: failure.code });
  if (failure.code === UNAVAILABLE) return new DatabaseUnavailable(error);
  return failure.code?.startsWith(BUSY) ? new DatabaseBusy(error) : error;
}
