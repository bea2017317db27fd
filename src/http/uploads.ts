/**
 * Upload bodies that stream to storage (live-response files): refused at their declared size before
 * a byte is read, and a multipart body the parser cannot read is the client's error (400), never
 * an unhandled one. Errors that carry their own status (a part over a limit, 413) keep it; errors
 * of the storage the content streams to are not the parser's and stay server errors.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { finished, PassThrough, type Readable } from 'node:stream';
import { DomainError, InvalidRequestError } from '../domain/errors.js';

/** Room for a multipart body's boundaries and part headers around the one file it carries. */
export const MULTIPART_ALLOWANCE_BYTES = 64 * 1024;

/** Limits of the multipart parser: one file, and little else a client could send beside it. */
export const MULTIPART_LIMITS = { files: 1, fields: 16, fieldSize: 64 * 1024, parts: 20, headerPairs: 100 } as const;

/**
 * An onRequest hook: 413 for a body whose Content-Length says it is over the limit. The connection
 * closes after the answer, so the server does not go on receiving the body it refused.
 */
export function refuseDeclaredOver(limitBytes: number) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const declared = Number(request.headers['content-length']);
    if (declared > limitBytes) {
      reply.header('connection', 'close');
      throw new DomainError('payload_too_large', `The body is more than ${limitBytes} bytes`);
    }
  };
}

function malformed(error: unknown): unknown {
  if ((error as { statusCode?: number }).statusCode || error instanceof DomainError) return error;
  return new InvalidRequestError(`The multipart body is malformed: ${(error as Error).message}`);
}

/**
 * The multipart body's file (its first part that is a file, as cbapi sends it): its name and content. A
 * parser error while the content streams arrives on the content as an InvalidRequestError.
 */
export async function multipartFile(request: FastifyRequest, field: string): Promise<{ filename: string; content: Readable }> {
  const upload = request.isMultipart() ? await request.file().catch((error: unknown) => Promise.reject(malformed(error))) : undefined;
  if (!upload) throw new InvalidRequestError(`${field}: send the content as the multipart field "${field}"`);
  const content = new PassThrough();
  // The parser may fail before the service starts reading (it checks the session first); the
  // error then waits on the destroyed stream for the service's pipeline, not the process.
  content.on('error', () => undefined);
  // finished(), not an 'error' listener: the parser may have failed the part before it was handed over.
  finished(upload.file, (error) => {
    if (error) content.destroy(malformed(error) as Error);
  });
  upload.file.pipe(content);
  return { filename: upload.filename, content };
}
