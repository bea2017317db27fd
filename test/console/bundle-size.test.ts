/** The console's first load stays light: issue 20 allows at most 300 KB of compressed JavaScript. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { BUILT_CONSOLE_DIR, consoleBuilt } from '../../src/http/console-static.js';

const LIMIT_BYTES = 300 * 1024;

it('loads under 300 KB of gzipped JavaScript', { skip: consoleBuilt(BUILT_CONSOLE_DIR) ? undefined : 'the console is not built (npm run build)' }, () => {
  const assets = join(BUILT_CONSOLE_DIR, 'assets');
  const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
  assert.ok(scripts.length > 0);
  const compressed = scripts.reduce((sum, name) => sum + gzipSync(readFileSync(join(assets, name)), { level: 9 }).length, 0);
  assert.ok(compressed < LIMIT_BYTES, `${compressed} bytes of gzipped JavaScript`);
});
