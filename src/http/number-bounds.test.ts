/**
 * Numbers out of range are refused at the edge, whatever route they reach: query strings that
 * Ajv's coercion would turn into Infinity, JSON numbers that parse to Infinity, and integers past
 * what a store keeps. A refused sensor value must leave every reader's list intact.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { as, startTestApp, type TestApp } from '../../test/support/app.js';
import { hostFacts, installCode } from '../../test/support/sensors.js';

describe('number bounds', () => {
  let test: TestApp;
  before(async () => {
    test = await startTestApp();
  });
  after(() => test.close());

  const register = async (body: string) => test.app.inject({
    method: 'POST', url: '/sensor/v1/register', headers: { 'content-type': 'application/json' }, payload: body,
  });

  it('refuses a registration whose build_id is "1e400", and the sensor list still answers', async () => {
    const code = await installCode(test);
    const refused = await register(JSON.stringify({ install_code: code, ...hostFacts(), build_id: '1e400' }));
    assert.equal(refused.statusCode, 400, refused.body);
    assert.equal(refused.json().reason, 'invalid_request');
    assert.match(refused.json().message, /build_id/);
    const list = await test.app.inject({ url: '/api/v1/sensor', headers: as(test.adminToken) });
    assert.equal(list.statusCode, 200, list.body);
  });

  it('refuses a JSON number a double cannot hold, even where the schema takes anything', async () => {
    const code = await installCode(test);
    const body = JSON.stringify({ install_code: code, ...hostFacts() });
    const literal = await register(body.replace('{', '{"build_id":1e400,'));
    assert.equal(literal.statusCode, 400, literal.body);
    const inside = await test.app.inject({
      method: 'POST', url: '/api/v1/threat_report', headers: { ...as(test.adminToken), 'content-type': 'application/json' },
      payload: '{"updates": {"is_ignored": true}, "anything": [-1e999]}',
    });
    assert.equal(inside.statusCode, 400, inside.body);
    assert.match(inside.json().message, /out of range/);
  });

  it('refuses integers past what a store keeps, where the route set no bound of its own', async () => {
    const code = await installCode(test);
    const huge = await register(JSON.stringify({ install_code: code, ...hostFacts(), physical_memory_size: 2 ** 64 }));
    assert.equal(huge.statusCode, 400, huge.body);
    assert.match(huge.json().message, /physical_memory_size must be <= 9007199254740991/);
  });

  for (const url of [
    '/api/v1/banning/blacklist?count=1e400',
    '/api/v1/banning/blacklist?start=1e400',
    '/api/v1/banning/blacklist?start=-1e400',
    '/api/v1/process/00000001-0000-0001-0000-000000000001/0?children=1e400',
  ]) {
    it(`answers 400 to ${url}`, async () => {
      const response = await test.app.inject({ url, headers: as(test.adminToken) });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().reason, 'invalid_request');
    });
  }

  it('answers no 1e400 in any numeric query parameter of any route with a 5xx', async () => {
    const document = (await test.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; schema: { type?: string } }[] }>>;
    };
    let asked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const numeric = (operation.parameters ?? []).filter((p) => p.in === 'query' && ['integer', 'number'].includes(p.schema.type ?? ''));
        for (const parameter of numeric) {
          const url = `${path.replace(/\{[^}]+\}/g, '1')}?${parameter.name}=1e400`;
          const response = await test.app.inject({ method: method.toUpperCase() as 'GET', url, headers: as(test.adminToken) });
          assert.ok(response.statusCode < 500, `${method.toUpperCase()} ${url}: ${response.statusCode} ${response.body}`);
          asked += 1;
        }
      }
    }
    assert.ok(asked > 10, `only ${asked} numeric query parameters`);
  });

  it('shows the ranges it enforces in the OpenAPI document', async () => {
    const document = (await test.app.inject({ url: '/openapi.json' })).json();
    const start = document.paths['/api/v1/banning/blacklist'].get.parameters.find((p: { name: string }) => p.name === 'start');
    assert.equal(start.schema.maximum, Number.MAX_SAFE_INTEGER);
  });
});
