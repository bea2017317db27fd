/**
 * Authentication cannot be walked around by spelling a path differently (issue 17). Every route
 * the app registered (read at runtime, so routes added later are covered) is requested over a real
 * socket, with the target sent as written (app.inject would normalize it), in each spelling a
 * server or proxy might decode, without credentials and with the other kind of credential. The
 * answer is 401, or 404 when the spelling routes nowhere; never 2xx, 3xx or 5xx.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startListeningTestApp, type ListeningTestApp } from '../../test/support/app.js';
import { registerSensor, type TestSensor } from '../../test/support/sensors.js';
import { routesWithPolicies } from './auth.js';

interface RawResponse {
  status: number;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

function send(base: string, method: string, target: string, headers: Record<string, string>): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  const body = method === 'GET' || method === 'HEAD' ? undefined : '{}';
  return new Promise((resolve, reject) => {
    const req = request({
      agent, host: hostname, port, method, path: target,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json', 'content-length': '2' } : {}) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const encodeLetters = (path: string, escape: string) =>
  path.replace(/[a-z]/gi, (c) => escape + c.charCodeAt(0).toString(16).padStart(2, '0'));

/** Spellings of `path`; `routes` marks those the router sends to the same route. */
function spellings(path: string, origin: string): { name: string; target: string; routes: boolean }[] {
  const [first, ...rest] = path.slice(1).split('/');
  return [
    { name: 'as registered', target: path, routes: true },
    { name: 'percent-encoded', target: encodeLetters(path, '%'), routes: true },
    { name: 'one letter encoded', target: path.replace(/[a-z]/, (c) => '%' + c.charCodeAt(0).toString(16)), routes: true },
    { name: 'absolute form', target: origin + path, routes: true },
    { name: 'absolute form, encoded', target: origin + encodeLetters(path, '%'), routes: true },
    { name: 'trailing slash', target: path + '/', routes: true },
    { name: 'double-encoded', target: encodeLetters(path, '%25'), routes: false },
    { name: 'upper case', target: path.toUpperCase(), routes: false },
    { name: 'mixed case', target: path.replace(/[a-z]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c)), routes: false },
    { name: 'dot segment before', target: `/x/../${path.slice(1)}`, routes: false },
    { name: 'encoded dot segment', target: `/${first}/%2e%2e/${path.slice(1)}`, routes: false },
    { name: 'dot segment inside', target: `/${first}/./${rest.join('/')}`, routes: false },
    { name: 'double slash', target: '/' + path, routes: false },
    { name: 'semicolon', target: `/${first};x/${rest.join('/')}`, routes: false },
  ];
}

describe('authentication whatever the spelling of the path', () => {
  let test: ListeningTestApp;
  let sensor: TestSensor;
  before(async () => {
    test = await startListeningTestApp();
    sensor = await registerSensor(test);
  });
  after(async () => {
    agent.destroy();
    await test.close();
  });

  it('checks the spellings against a route that answers with the right credential', async () => {
    const token = { 'x-auth-token': test.adminToken };
    for (const { name, target, routes } of spellings('/api/info', test.url)) {
      const { status } = await send(test.url, 'GET', target, token);
      assert.equal(status, routes ? 200 : 404, `${name}: ${target}`);
    }
  });

  it('refuses every route in every spelling without credentials and with the wrong kind', async () => {
    const routes = routesWithPolicies(test.app).filter((route) => route.auth !== 'public');
    assert.ok(routes.filter((r) => r.auth === 'user').length >= 100, `expected the whole API, found ${routes.length}`);
    assert.ok(routes.filter((r) => r.auth === 'sensor').length >= 5, 'expected the sensor protocol');
    assert.ok(routes.some((r) => r.auth === 'ingest'), 'expected Sysmon ingest');
    // An ingest route refuses both other kinds at once.
    const wrongKind = { user: sensor.headers, sensor: { 'x-auth-token': test.adminToken }, ingest: { ...sensor.headers, 'x-auth-token': test.adminToken } };
    const failures: string[] = [];
    for (const route of routes) {
      const path = route.url.replace(/:[^/]+/g, '1');
      for (const { name, target, routes: reachesRoute } of spellings(path, test.url)) {
        for (const headers of [{}, wrongKind[route.auth as 'user' | 'sensor' | 'ingest']]) {
          const { status, body } = await send(test.url, route.method, target, headers);
          const allowed = reachesRoute ? [401] : [401, 404];
          if (!allowed.includes(status) || (status === 401 && route.method !== 'HEAD' && !body.includes('401 Unauthorized'))) {
            failures.push(`${route.method} ${target} (${name}, ${Object.keys(headers).join() || 'no credentials'}): ${status}`);
          }
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it('answers an unknown path 401 when it looks like /api and 404 otherwise', async () => {
    for (const target of ['/api/v1/nothing-here', '/%61pi/nothing', '/API/x', '/x/../api/y', 'http://other.example/api/z']) {
      assert.equal((await send(test.url, 'GET', target, {})).status, 401, target);
    }
    for (const target of ['/nothing-here', '/apix', '/sensor/v1/nothing', '/docs-not']) {
      assert.equal((await send(test.url, 'GET', target, {})).status, 404, target);
    }
  });
});
