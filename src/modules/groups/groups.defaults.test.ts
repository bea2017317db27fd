/** The sensor backend URL a new group gets by default. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sensorBackendUrl } from './groups.defaults.js';

describe('sensorBackendUrl', () => {
  it('points at this server, over HTTPS unless TLS is off', () => {
    assert.equal(sensorBackendUrl({ host: 'edr.example.com', port: 8443, tls: true, publicUrl: '' }), 'https://edr.example.com:8443');
    assert.equal(sensorBackendUrl({ host: '10.0.0.5', port: 80, tls: false, publicUrl: '' }), 'http://10.0.0.5:80');
  });

  it('is the configured public URL when there is one, whatever the server listens on', () => {
    assert.equal(
      sensorBackendUrl({ host: '0.0.0.0', port: 8443, tls: false, publicUrl: 'https://edr.example.com/' }),
      'https://edr.example.com',
    );
  });

  it('brackets an IPv6 address', () => {
    assert.equal(sensorBackendUrl({ host: '::1', port: 443, tls: true, publicUrl: '' }), 'https://[::1]:443');
  });
});
