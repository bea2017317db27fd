/**
 * JSON request bodies. An empty body counts as no body: Carbon Black clients POST some actions
 * (token reset, partition mount) with nothing or the literal `null`, and that is not an error.
 * Prototype-poisoning keys are rejected, as Fastify's own parser does, and so are numbers JSON can
 * write but a double cannot hold (1e400 parses to Infinity): no schema or store should meet one.
 */
import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';

export function registerJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, refuseNonFiniteNumbers, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      done(Object.assign(new Error(`Body is not valid JSON: ${(error as Error).message}`), { statusCode: 400 }), undefined);
    }
  });
}

function refuseNonFiniteNumbers(key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new Error(`the number at "${key}" is out of range`);
  }
  return value;
}
