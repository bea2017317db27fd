/** The channel settings: read as written, and a malformed one stops the start with a message naming it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../config/load.js';
import { createContainer } from '../../container.js';
import { tempDir } from '../../../test/support/temp.js';
import { channelSettings } from './channel-settings.js';

const settings = (env: Record<string, string>) => channelSettings(loadConfig({ dataDir: tempDir() }, env));

describe('notification channel settings', () => {
  it('reads several syslog receivers with their transport and format, and the SMTP and webhook URLs', () => {
    const read = settings({
      VIGIL_SYSLOG_URL: 'udp://10.0.0.1, tcp://siem.example:1514?format=rfc3164,tls://[::1]:6514',
      VIGIL_SMTP_URL: 'smtp://alerts%40corp:p%40ss@mail.example:587?starttls=required',
      VIGIL_WEBHOOK_URL: 'https://soar.example/hook', VIGIL_WEBHOOK_SECRET: 'sixteen-chars-or-more',
    });
    assert.deepEqual(read.syslog.map((t) => [t.transport, t.host, t.port, t.format]), [
      ['udp', '10.0.0.1', 514, 'rfc5424'], ['tcp', 'siem.example', 1514, 'rfc3164'], ['tls', '::1', 6514, 'rfc5424'],
    ]);
    assert.deepEqual({ ...read.email, shown: undefined }, {
      host: 'mail.example', port: 587, secure: false, requireStartTls: true, user: 'alerts@corp', password: 'p@ss', from: 'vigil@localhost', shown: undefined,
    });
    assert.equal(read.email?.shown.includes('p%40ss'), false, 'no password in what is shown');
    assert.equal(read.webhook?.url, 'https://soar.example/hook');
  });

  it('refuses malformed URLs, unknown formats and a webhook without its secret, naming the setting', () => {
    const refused: [Record<string, string>, RegExp][] = [
      [{ VIGIL_SYSLOG_URL: 'udp://10.0.0.1,http://x' }, /syslogUrl: "http:\/\/x" is not udp:\/\/, tcp:\/\/ or tls:\/\//],
      [{ VIGIL_SYSLOG_URL: 'tcp://host:99999' }, /syslogUrl: "tcp:\/\/host:99999" is not a URL/],
      [{ VIGIL_SYSLOG_URL: 'tcp://host?format=cef' }, /format "cef"/],
      [{ VIGIL_SMTP_URL: 'mail.example' }, /smtpUrl/],
      [{ VIGIL_SMTP_URL: 'smtp://mail.example', VIGIL_SMTP_FROM: 'not an address' }, /smtpFrom/],
      [{ VIGIL_WEBHOOK_URL: 'https://soar.example/hook' }, /webhookSecret: required/],
      [{ VIGIL_NOTIFICATION_CA_FILE: '/no/such/file.pem' }, /notificationCaFile/],
    ];
    for (const [env, message] of refused) assert.throws(() => settings(env), (e: unknown) => e instanceof ConfigError && message.test(e.message), JSON.stringify(env));
  });

  it('stops the server\'s start on a malformed channel URL', async () => {
    const config = loadConfig({ dataDir: tempDir(), logLevel: 'silent' }, { VIGIL_SYSLOG_URL: 'tcp//siem.example' });
    await assert.rejects(createContainer(config), /syslogUrl: "tcp\/\/siem.example" is not a URL/);
  });
});
