/**
 * Requests for every operation of the OpenAPI document, read at run time, so routes added later
 * are fuzzed without naming them here: path and query parameters, headers (the right credentials
 * mostly; none or forged ones sometimes) and bodies, each from the operation's schemas with
 * deliberate mistakes mixed in.
 */
import fc from 'fast-check';
import { asText, fuzzedValue, NASTY_VALUES, validValue, type Schema } from './schema-values.js';

export interface Operation {
  method: string;
  /** The document's path template, e.g. /api/v1/sensor/{id}. */
  path: string;
  parameters: { in: string; name: string; required?: boolean; schema?: Schema }[];
  bodySchema: Schema | undefined;
  /** Whether a body goes with it at all (POST, PUT, PATCH, DELETE with a request body). */
  takesBody: boolean;
  auth: 'api' | 'sensor' | 'ingest' | 'none';
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface Credentials {
  apiToken: string;
  sensorAuthorization: string;
  /** An Authorization header with a group's ingest key. */
  ingestAuthorization: string;
}

/**
 * Operations that are not fuzzed, each with its reason. Empty today: command waits are bounded by
 * the fuzzing app's one-second command timeout, and feed downloads by its one-second download limit.
 */
export const SKIPPED: Record<string, string> = {};

interface RawOperation {
  parameters?: Operation['parameters'];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  security?: Record<string, unknown>[];
}

export function operationsOf(document: { paths: Record<string, Record<string, RawOperation>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods)
    .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
    .filter(([method]) => !(`${method.toUpperCase()} ${path}` in SKIPPED))
    .map(([method, raw]) => {
      const security = raw.security?.flatMap((entry) => Object.keys(entry));
      return {
        method: method.toUpperCase(),
        path,
        parameters: raw.parameters ?? [],
        bodySchema: raw.requestBody?.content?.['application/json']?.schema,
        takesBody: method !== 'get',
        auth: security === undefined ? 'api' : security.includes('sensorSecret') ? 'sensor' : security.includes('ingestKey') ? 'ingest'
          : security.length ? 'api' : 'none',
      } satisfies Operation;
    }));
}

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/octet-stream', '',
  'multipart/form-data; boundary=fuzz', 'multipart/form-data', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16',
];

const RAW_BODIES = [
  '', '{', '}', '[]', 'null', '1e400', '{"a":1e400}', '[-1e400]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}',
  '"text"', '{"sequence":1,"events":[]}', '{"sequence":1e400,"events":[]}', 'not json at all', '\u0000\u0001\u0002',
];

function multipartBody(): fc.Arbitrary<string> {
  const part = fc.record({
    name: fc.constantFrom('file', 'x', ''),
    filename: fc.option(fc.constantFrom('a.bin', '', '../../x', 'e\u0000vil'), { nil: undefined }),
    content: fc.string({ maxLength: 256, unit: 'binary' }),
  });
  return fc.tuple(fc.array(part, { maxLength: 3 }), fc.boolean()).map(([parts, closed]) => parts
    .map((p) => `--fuzz\r\nContent-Disposition: form-data; name="${p.name}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}\r\n\r\n${p.content}\r\n`)
    .join('') + (closed ? '--fuzz--\r\n' : ''));
}

function bodyOf(operation: Operation): fc.Arbitrary<{ body: string | Buffer; contentType: string } | undefined> {
  const json = operation.bodySchema
    ? fc.oneof({ weight: 4, arbitrary: validValue(operation.bodySchema) }, fuzzedValue(operation.bodySchema)).map((v) => JSON.stringify(v) ?? '')
    : fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v));
  const text = fc.oneof(
    { weight: 6, arbitrary: json },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_BODIES) },
    { weight: 1, arbitrary: multipartBody() },
    { weight: 1, arbitrary: fc.string({ maxLength: 512, unit: 'binary' }) },
  );
  const contentType = fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, fc.constantFrom(...CONTENT_TYPES));
  const sent = fc.tuple(text, contentType).map(([body, type]) => ({
    body, contentType: body.startsWith('--fuzz') ? 'multipart/form-data; boundary=fuzz' : type,
  }));
  const bytes = fc.uint8Array({ maxLength: 2048 }).map((b) => ({ body: Buffer.from(b), contentType: 'application/octet-stream' }));
  return fc.option(fc.oneof({ weight: 5, arbitrary: sent }, { weight: 1, arbitrary: bytes }), { nil: undefined, freq: 8 });
}

function authHeaders(operation: Operation, credentials: Credentials): fc.Arbitrary<Record<string, string>> {
  const forged: fc.Arbitrary<Record<string, string>> = fc.oneof(
    fc.constant({}),
    fc.stringMatching(/^[0-9a-f]{40}$/).map((token) => ({ 'x-auth-token': token })),
    fc.constantFrom(...NASTY_VALUES.filter((v) => typeof v === 'string')).map((v) => ({ 'x-auth-token': v as string, authorization: `Sensor ${v as string}` })),
    fc.constant({ authorization: 'Sensor 1:' + '0'.repeat(64) }),
  );
  const right: Record<string, string> = operation.auth === 'sensor' ? { authorization: credentials.sensorAuthorization }
    : operation.auth === 'ingest' ? { authorization: credentials.ingestAuthorization }
    : operation.auth === 'api' ? { 'x-auth-token': credentials.apiToken } : {};
  return fc.oneof({ weight: 9, arbitrary: fc.constant(right) }, { weight: 1, arbitrary: forged });
}

function parameterText(schema: Schema | undefined): fc.Arbitrary<string> {
  return fuzzedValue(schema ?? {}).map(asText);
}

export function requestOf(operation: Operation, credentials: Credentials): fc.Arbitrary<FuzzRequest> {
  const inPath = operation.parameters.filter((p) => p.in === 'path');
  const inQuery = operation.parameters.filter((p) => p.in === 'query');
  const path = fc.tuple(...inPath.map((p) => parameterText(p.schema))).map((values) => inPath.reduce(
    (url, parameter, i) => url.replace(`{${parameter.name}}`, encodeURIComponent(values[i]!) || '%20'), operation.path,
  ));
  const query = fc.tuple(...inQuery.map((p) => fc.option(parameterText(p.schema), { nil: undefined, freq: 2 })))
    .map((values) => new URLSearchParams(inQuery.flatMap((p, i) => (values[i] === undefined ? [] : [[p.name, values[i]!] as [string, string]]))).toString());
  const strayQuery = fc.option(fc.constantFrom('start=1e400', 'rows=-1', 'q=%28', 'cb.urlver=x', 'count=1e400', 'children=1e400', 'wait=true'), { nil: undefined, freq: 6 });
  const body = operation.takesBody ? bodyOf(operation) : fc.constant(undefined);
  const encoding = fc.option(fc.constantFrom('gzip', 'deflate', 'identity', 'br'), { nil: undefined, freq: 8 });
  return fc.record({ path, query, strayQuery, auth: authHeaders(operation, credentials), body, encoding }).map((r) => {
    const search = [r.query, r.strayQuery].filter(Boolean).join('&');
    const headers: Record<string, string> = { ...r.auth };
    if (r.body) headers['content-type'] = r.body.contentType;
    if (r.body && r.encoding) headers['content-encoding'] = r.encoding;
    return { method: operation.method, url: search ? `${r.path}?${search}` : r.path, headers, ...(r.body ? { body: r.body.body } : {}) };
  });
}
