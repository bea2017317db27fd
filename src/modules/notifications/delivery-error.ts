/**
 * Why a delivery failed, in words an operator can act on, sorted into the kinds the test route
 * reports as its reason. Node, TLS and nodemailer each name the same failures differently.
 */
export type FailureKind = 'unreachable' | 'timeout' | 'certificate' | 'authentication' | 'rejected';

export class DeliveryError extends Error {
  constructor(message: string, readonly kind: FailureKind, readonly permanent = false) {
    super(message);
    this.name = 'DeliveryError';
  }
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET', 'EPIPE', 'EDNS', 'ECONNECTION']);
const CERTIFICATE = /certificate|self[- ]signed|CERT_|unable to verify|altname/i;

/** A DeliveryError naming `target` for any failure of a send. */
export function deliveryError(error: unknown, target: string): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const e = error as { code?: string; message?: string; responseCode?: number };
  const message = `${target}: ${e.message ?? String(error)}`;
  if (e.code === 'EAUTH') return new DeliveryError(`${target}: authentication refused (${e.message ?? ''})`, 'authentication');
  if (CERTIFICATE.test(e.code ?? '') || CERTIFICATE.test(e.message ?? '')) return new DeliveryError(message, 'certificate');
  if (e.code === 'ETIMEDOUT' || /timed? ?out/i.test(e.message ?? '')) return new DeliveryError(message, 'timeout');
  // nodemailer reports socket failures as ESOCKET, the system's code only in its message.
  const systemCode = e.code === 'ESOCKET' ? /\b(E[A-Z_]+)\b/.exec(e.message ?? '')?.[1] : e.code;
  if (systemCode !== undefined && UNREACHABLE.has(systemCode)) return new DeliveryError(message, 'unreachable');
  return new DeliveryError(message, 'rejected');
}

/** Rejects with a timeout DeliveryError when `work` has not settled within `ms`; `abort` releases what it holds. */
export function withDeadline<T>(work: Promise<T>, ms: number, target: string, abort: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort();
      reject(new DeliveryError(`${target}: no answer within ${ms} ms (timed out)`, 'timeout'));
    }, ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
