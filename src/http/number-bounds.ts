/**
 * Every number a request carries is finite and every integer fits what the stores keep (a JS safe
 * integer, inside SQLite's and PostgreSQL's 64 bits), whatever a route's schema forgot to bound.
 *
 * Ajv's type coercion turns the query string "1e400" into Infinity and, with its default
 * strictNumbers, then skips minimum and maximum for a non-finite number: one such build_id once
 * registered a sensor whose list then failed for every reader. So request schemas get a range on
 * every number and integer that lacks one (onRoute, before Fastify compiles them, so the OpenAPI
 * document shows the same ranges), and Ajv runs with strictNumbers off, so ranges see Infinity and
 * refuse it. Response schemas are left alone: they describe what the server sends.
 */
import type { FastifyInstance, FastifySchema } from 'fastify';

/** Ajv options for buildApp: ranges must apply to non-finite numbers too (see above). */
export const AJV_NUMBER_OPTIONS = { strictNumbers: false } as const;

const RANGES: Record<string, { minimum: number; maximum: number }> = {
  integer: { minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
  number: { minimum: -Number.MAX_VALUE, maximum: Number.MAX_VALUE },
};

/** Keys whose values are data, not subschemas: nothing under them is bounded. */
const DATA_KEYS = new Set(['enum', 'const', 'default', 'examples', 'example', 'description', 'title', 'required']);
/** Keys whose values map names to subschemas, any name (a property may be called "default"). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);

const REQUEST_PARTS = ['body', 'querystring', 'params', 'headers'] as const;

/** A copy of a JSON schema with a range on every number and integer that had none. */
export function withBoundedNumbers(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withBoundedNumbers);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DATA_KEYS.has(key)) copy[key] = value;
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object') copy[key] = mapValues(value, withBoundedNumbers);
    else copy[key] = withBoundedNumbers(value);
  }
  const types = ([] as unknown[]).concat(copy.type);
  const range = RANGES[types.includes('number') ? 'number' : types.includes('integer') ? 'integer' : ''];
  if (range) {
    if (copy.minimum === undefined && copy.exclusiveMinimum === undefined) copy.minimum = range.minimum;
    if (copy.maximum === undefined && copy.exclusiveMaximum === undefined) copy.maximum = range.maximum;
  }
  return copy;
}

function mapValues(map: object, change: (value: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(map).map(([name, value]) => [name, change(value)]));
}

export function registerNumberBounds(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!route.schema) return;
    const schema: FastifySchema = { ...route.schema };
    for (const part of REQUEST_PARTS) {
      if (schema[part] !== undefined) schema[part] = withBoundedNumbers(schema[part]);
    }
    route.schema = schema;
  });
}
