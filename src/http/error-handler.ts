/**
 * The one place errors become HTTP responses, in the shapes Carbon Black clients expect
 * (reference core §9): 401 and 404 as the Werkzeug HTML pages the real server sent (clients match
 * their text; a few 404s carry a plain-text message clients read instead), 400
 * `{"reason": …, "message": …}` (cbapi keys on reason "query_malformed_syntax"; a refused query adds
 * its position and parameter), other client
 * errors as the same JSON, a 503 with Retry-After when the server is too busy to take a write, a
 * 429 with Retry-After while failed logins slow the next one,
 * and a 500 that never leaks internals.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, InvalidRequestError, NotFoundError, TooManyRequestsError, UnavailableError, type ErrorCode } from '../domain/errors.js';

const STATUS_OF: Record<ErrorCode, number> = {
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid_request: 400,
  query_malformed_syntax: 400,
  precondition_failed: 412,
  payload_too_large: 413,
  timeout: 408,
  // What Carbon Black's front end answered when a search outlived it.
  query_timeout: 504,
  unavailable: 503,
  too_many_requests: 429,
};

const UNAUTHORIZED_PAGE = `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<title>401 Unauthorized</title>
<h1>Unauthorized</h1>
<p>The server could not verify that you are authorized to access the URL requested.  You either supplied the wrong credentials (e.g. a bad password), or your browser doesn't understand how to supply the credentials required.</p>
`;

const NOT_FOUND_PAGE = `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<title>404 Not Found</title>
<h1>Not Found</h1>
<p>The requested URL was not found on the server.  If you entered the URL manually please check your spelling and try again.</p>
`;

const INTERNAL_ERROR_TEXT = 'Unhandled exception. Check logs for details.';

/** Fastify's own 4xx errors (bad JSON, size, media type) keep their status under a stable reason. */
const FRAMEWORK_REASONS: Record<number, string> = {
  400: 'invalid_request',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

function send(reply: FastifyReply, status: number, reason: string, message: string, details?: DomainError['details']): FastifyReply {
  if (status === 401) return reply.code(401).type('text/html; charset=utf-8').send(UNAUTHORIZED_PAGE);
  if (status === 404) return reply.code(404).type('text/html; charset=utf-8').send(NOT_FOUND_PAGE);
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify({ ...details, reason, message }));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => send(reply, 404, 'not_found', 'No such route'));

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof DomainError) {
      if (error.code === 'not_found') request.log.info({ reason: error.message }, 'not found');
      if (error instanceof NotFoundError && error.plainText) {
        return reply.code(404).type('text/plain; charset=utf-8').send(error.message);
      }
      if (error instanceof InvalidRequestError && error.body) {
        return reply.code(400).type('application/json; charset=utf-8').send(JSON.stringify(error.body));
      }
      if (error instanceof UnavailableError || error instanceof TooManyRequestsError) {
        reply.header('retry-after', String(error.retryAfterSeconds));
      }
      return send(reply, STATUS_OF[error.code], error.reason, error.message, error.details);
    }
    if (error.validation) {
      return send(reply, 400, 'invalid_request', error.message);
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return send(reply, status, FRAMEWORK_REASONS[status] ?? 'client_error', error.message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).type('text/html; charset=utf-8').send(INTERNAL_ERROR_TEXT);
  });
}
