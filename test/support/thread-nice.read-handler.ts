/** A read-pool handler for the pool's tests: answers the nice value of the worker thread running it. */
import { threadNice } from '../../src/db/thread-priority.js';
import type { ReadResult } from '../../src/db/dialects/sqlite-read.messages.js';

export function run(): ReadResult<number> {
  return { result: threadNice(), more: false };
}
