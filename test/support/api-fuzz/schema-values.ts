/**
 * fast-check arbitraries from the JSON schemas of the OpenAPI document: values a schema accepts
 * (mostly), and now and then one it should refuse, so a route sees both what passes its
 * validation and what must be turned away with a 4xx.
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

/** Values clients get wrong, or attackers send on purpose, whatever a field's type. */
export const NASTY_VALUES: readonly unknown[] = [
  '', ' ', '0', '-1', '1e400', '-1e400', 'NaN', 'Infinity', 'null', 'true', '[]', '{}', '9007199254740993',
  '-9223372036854775809', '18446744073709551616', '1.5', '0x10', '%00', '\u0000', '../../../etc/passwd', '\' OR 1=1 --',
  '"', '\\', '*', '💥', 'a'.repeat(5000), 'C:\\Windows\\System32\\cmd.exe', '2026-13-45T25:61:61Z',
  0, -1, 1.5, -0, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, -1e308, Number.MIN_VALUE, true, false, null, [], {}, [null], { '': -1e308 },
];

/** Objects the app starts with (group 1, site 1, the registered sensor) have small ids. */
const SMALL_IDS = { min: 1, max: 5 };

function integerOf(schema: Schema): fc.Arbitrary<number> {
  const min = typeof schema.minimum === 'number' ? Math.max(schema.minimum, Number.MIN_SAFE_INTEGER) : -(2 ** 40);
  const max = typeof schema.maximum === 'number' ? Math.min(schema.maximum, Number.MAX_SAFE_INTEGER) : 2 ** 40;
  if (min > max) return fc.constant(min);
  const any = fc.integer({ min, max });
  const ends = fc.constantFrom(min, max);
  // The small ids are drawn from their overlap with the range: filtering them by the range would
  // retry forever where none fits (a minimum of 1024, say).
  const smallMin = Math.max(SMALL_IDS.min, min);
  const smallMax = Math.min(SMALL_IDS.max, max);
  if (smallMin > smallMax) return fc.oneof({ weight: 3, arbitrary: any }, ends);
  return fc.oneof({ weight: 2, arbitrary: any }, { weight: 1, arbitrary: fc.integer({ min: smallMin, max: smallMax }) }, ends);
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 4096);
    } catch {
      // A pattern JavaScript cannot compile gives plain strings below.
    }
  }
  const minLength = typeof schema.minLength === 'number' ? Math.min(schema.minLength, 64) : 0;
  const maxLength = Math.max(minLength, Math.min(typeof schema.maxLength === 'number' ? schema.maxLength : 64, 64));
  return fc.oneof(fc.string({ minLength, maxLength }), fc.string({ minLength, maxLength, unit: 'binary' }));
}

function objectOf(schema: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const model = Object.fromEntries(Object.entries(properties).map(([name, sub]) => [name, fuzzedValue(sub, depth + 1)]));
  const known = fc.record(model, { requiredKeys: Object.keys(model).filter((name) => required.has(name)) });
  const patterns = Object.values((schema.patternProperties ?? {}) as Record<string, Schema>);
  const extra = patterns[0] ?? (typeof schema.additionalProperties === 'object' ? (schema.additionalProperties as Schema) : undefined);
  if (!extra) return known;
  const keyPattern = Object.keys((schema.patternProperties ?? {}) as Schema)[0];
  const key = keyPattern ? stringOf({ pattern: keyPattern }) : fc.string({ maxLength: 16 });
  return fc.tuple(known, fc.dictionary(key, fuzzedValue(extra, depth + 1), { maxKeys: 3 })).map(([a, b]) => ({ ...b, ...a }));
}

/** A value the schema accepts, as far as this generator knows the schema's keywords. */
export function validValue(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (alternatives?.length) return fc.oneof(...alternatives.map((alternative) => validValue(alternative, depth + 1)));
  const value = typedValue(schema, depth);
  return schema.nullable === true ? fc.option(value, { nil: null, freq: 8 }) : value;
}

function typedValue(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'integer': return integerOf(schema);
    case 'number': return fc.oneof(integerOf(schema), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }));
    case 'boolean': return fc.boolean();
    case 'string': return stringOf(schema);
    case 'null': return fc.constant(null);
    case 'array': {
      const maxLength = Math.min(typeof schema.maxItems === 'number' ? schema.maxItems : 4, 4);
      const minLength = Math.min(typeof schema.minItems === 'number' ? schema.minItems : 0, maxLength);
      return fc.array(fuzzedValue((schema.items ?? {}) as Schema, depth + 1), { minLength, maxLength });
    }
    case 'object': return objectOf(schema, depth);
    default: return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Mostly a valid value; sometimes a nasty one or any JSON at all. */
export function fuzzedValue(schema: Schema, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 12, arbitrary: validValue(schema, depth) },
    { weight: 1, arbitrary: fc.constantFrom(...NASTY_VALUES) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}

/** How a value travels in a path or query string. */
export function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}
