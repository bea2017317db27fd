/**
 * Where a forwarder output delivers: a batch of records, encoded in the output's format, is
 * delivered whole or the call fails (and the runner sends it again later). Delivered means what
 * the receiver acknowledges: a file written and synced, an HTTP 2xx, a syslog stream's bytes
 * written to the socket (syslog has no acknowledgement of its own).
 */
import type { Forwardable } from '../forwarder-format.js';

export interface ForwardOutput {
  /**
   * Delivers `records`. Their text is made (and compressed) at once, but nothing reaches the
   * receiver before `ready` resolves (the cursor of the batch before stored), so that a restart
   * repeats at most one batch; when `ready` rejects, nothing is delivered and send rejects with it.
   */
  send(records: readonly Forwardable[], ready?: Promise<void>): Promise<void>;
  /** Releases connections and files; the output is not used again. */
  close(): Promise<void>;
}

/** Why a delivery failed, said so that an operator knows what to fix (shown in the status and by `POST …/test`). */
export class DeliveryError extends Error {}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code !== undefined && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
