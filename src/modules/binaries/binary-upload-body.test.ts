/**
 * The streaming reader of binary upload bodies, on real staging files: the content is decoded and
 * hashed wherever the body's chunks happen to split it, and malformed bodies are refused.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { tempDir } from '../../../test/support/temp.js';
import { readBinaryUploadBody } from './binary-upload-body.js';

const dir = tempDir();
const LIMITS = { bodyBytes: 1 << 20, otherBytes: 4096 };
let files = 0;

function read(text: string, chunkSize = text.length) {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += chunkSize) chunks.push(bytes.subarray(at, at + chunkSize));
  const path = join(dir, `${(files += 1)}.tmp`);
  return { path, result: readBinaryUploadBody(Readable.from(chunks), path, LIMITS) };
}

describe('binary upload body', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));
  const content = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7919) % 256));
  const base64 = content.toString('base64');
  const metadata = { md5: 'x', size: 3000, observed_filename: 'C:\\a "quoted" \\\\ name, with: {braces}' };

  for (const chunkSize of [1, 3, 7, 64, 100_000]) {
    it(`stages the content and parses the rest, in chunks of ${chunkSize} bytes`, async () => {
      const { path, result } = read(JSON.stringify({ metadata, content: base64, other: { content: 'inner' } }), chunkSize);
      const { body, staged } = await result;
      assert.deepEqual(body, { metadata, other: { content: 'inner' } });
      assert.deepEqual(readFileSync(path), content);
      assert.equal(staged!.size, 3000);
      assert.equal(staged!.md5, createHash('md5').update(content).digest('hex'));
      assert.equal(staged!.sha256, createHash('sha256').update(content).digest('hex'));
    });
  }

  it('takes the content before the metadata, with "/" escaped as some JSON writers do', async () => {
    const { path, result } = read(`{"content" : "${base64.replaceAll('/', '\\/')}", "metadata": ${JSON.stringify(metadata)}}`, 5);
    assert.deepEqual((await result).body, { metadata });
    assert.deepEqual(readFileSync(path), content);
  });

  it('creates no staging file for metadata alone, and leaves a content of null to the schema', async () => {
    const alone = read(JSON.stringify({ metadata }));
    assert.deepEqual(await alone.result, { body: { metadata }, staged: undefined });
    assert.equal(existsSync(alone.path), false);
    assert.deepEqual((await read('{"metadata": {}, "content": null}').result).body, { metadata: {}, content: null });
  });

  for (const [name, text, message] of [
    ['content that is not base64', '{"content": "abc\\u0041"}', /not base64/],
    ['content given twice', '{"content": "QQ==", "content": "QQ=="}', /twice/],
    ['a content string that never ends', '{"content": "QUFB', /never ends/],
    ['metadata that is not JSON', '{"metadata": {"a": }, "content": "QQ=="}', /not valid JSON/],
    ['a body that is not an object', '[1, 2]', /not a JSON object/],
  ] as const) {
    it(`refuses ${name} (400)`, async () => {
      await assert.rejects(read(text, 2).result, (error: Error & { code?: string }) => {
        assert.equal(error.code, 'invalid_request');
        assert.match(error.message, message);
        return true;
      });
    });
  }

  it('refuses metadata or a body over its limit (413)', async () => {
    await assert.rejects(read(JSON.stringify({ metadata: { pad: 'x'.repeat(5000) } })).result, { code: 'payload_too_large' });
    await assert.rejects(read(JSON.stringify({ content: 'A'.repeat(LIMITS.bodyBytes) })).result, { code: 'payload_too_large' });
  });
});
