/**
 * Logs are JSON lines for machines and pino-pretty's lines for a person at a terminal (issue 17
 * point 10). The pretty stream writes to the process's stdout, so a child process is the reader.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { logOptions } from './log-options.js';

const LINE = JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 1), pid: 1, hostname: 'h', msg: 'Vigil is listening' });

describe('log options', () => {
  it('are plain JSON lines when stdout is not a terminal', () => {
    assert.deepEqual(logOptions('info', false), { level: 'info' });
  });

  it('pretty-print each line when stdout is a terminal', () => {
    const module = fileURLToPath(new URL('./log-options.ts', import.meta.url));
    const script = `import { logOptions } from ${JSON.stringify(module)};\n` +
      `logOptions('info', true).stream.write(${JSON.stringify(LINE + '\n')});`;
    const printed = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.match(printed, /INFO.*Vigil is listening/);
    assert.throws(() => JSON.parse(printed), 'not JSON');
    assert.ok(!printed.includes('hostname'), printed);
  });
});
