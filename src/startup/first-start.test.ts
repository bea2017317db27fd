/** The first start's next steps name the analyst console, on a terminal and in a service log alike. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { rmSync } from 'node:fs';
import pino from 'pino';
import { CapturedOutput } from '../../test/support/captured-output.js';
import { tempDir } from '../../test/support/temp.js';
import { announceFirstStart } from './first-start.js';

const TOKEN = 'f'.repeat(40);

describe('the first start\'s next steps', () => {
  const dataDir = tempDir();
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  function announce(isTTY: boolean, consoleServed: boolean): { out: string; log: string } {
    const out = new CapturedOutput(isTTY);
    const logged = new CapturedOutput(false);
    announceFirstStart({ adminToken: TOKEN, url: 'https://0.0.0.0:8443', dataDir, consoleServed }, out, pino(logged));
    return { out: out.text, log: logged.text };
  }

  it('on a terminal, send the newcomer to the console first, then to the simulator', () => {
    const { out } = announce(true, true);
    const consoleAt = out.indexOf('Open the analyst console at https://127.0.0.1:8443/ and sign in with the token above.');
    assert.ok(consoleAt > out.indexOf('Next steps:'), out);
    assert.ok(consoleAt < out.indexOf('vigil simulate --server https://127.0.0.1:8443'), out);
  });

  it('on a terminal, say how to build the console when it is not built', () => {
    const { out } = announce(true, false);
    assert.match(out, /The analyst console is not built: run `npm run build`, restart, and open https:\/\/127\.0\.0\.1:8443\//);
  });

  it('in a service log, name the console and the token file, never the token', () => {
    const { out, log } = announce(false, true);
    assert.equal(out, '');
    assert.match(log, /next step: open the analyst console at https:\/\/127\.0\.0\.1:8443\/ and sign in with the token in .*admin-token\.txt/);
    assert.ok(!log.includes(TOKEN));
  });
});
