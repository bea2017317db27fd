/** The command-line tokenizer the index and the query share (reference §5.5). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cmdlineQueryTokens, cmdlineTokens } from './cmdline.js';

const texts = (cmdline: string) => cmdlineTokens(cmdline).map((t) => t.text);

describe('cmdline tokens', () => {
  it('tokenizes the user guide example as the guide lists it', () => {
    assert.deepEqual(texts('"C:\\Windows\\system32\\rundll32.exe" /d srrstr.dll,ExecuteScheduledSPPC'),
      ['c:', 'windows', 'system32', 'rundll32.exe', '.exe', '/d', 'srrstr.dll', '.dll', 'executescheduledsppc']);
  });

  it('reads a leading / as the program path and later ones as switches', () => {
    assert.deepEqual(texts('/bin/ls /tmp/somefile'), ['bin', 'ls', '/tmp', 'somefile']);
    assert.deepEqual(cmdlineQueryTokens('/d'), ['/d']);
  });

  it('keeps one trailing colon and splits on the others', () => {
    assert.deepEqual(texts('net use x: \\\\srv\\c$ a::b c:: http://h/p'), ['net', 'use', 'x:', 'srv', 'c$', 'a', 'b', 'c', 'http:', 'h', 'p']);
  });

  it('keeps % $ - . _ ^ @ # ! ? inside tokens and separates on the listed punctuation', () => {
    assert.deepEqual(texts("a%b$c-d_e^f@g#h!i?j 'q'(r)[s]{t},u=v<w>x&y|z;\u201Cw\u201D"),
      ['a%b$c-d_e^f@g#h!i?j', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'w']);
  });

  it('gives an extension token the position of its word, so phrases still line up', () => {
    assert.deepEqual(cmdlineTokens('run a.exe now'), [
      { text: 'run', position: 0 }, { text: 'a.exe', position: 1 }, { text: '.exe', position: 1 }, { text: 'now', position: 2 },
    ]);
  });

  it('leaves wildcards in query tokens', () => {
    assert.deepEqual(cmdlineQueryTokens('C:\\Win*\\power?hell.exe -e*'), ['c:', 'win*', 'power?hell.exe', '-e*']);
  });
});
