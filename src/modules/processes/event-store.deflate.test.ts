/**
 * The PostgreSQL store's chunk deflate settings (DEFLATE): the small output pieces that keep the
 * deflate off fresh allocations give the same bytes as zlib's default pieces, output longer than
 * one piece included, and any raw inflate reads them back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { DEFLATE } from './event-store.postgres.js';

const text = fc.oneof(
  fc.string({ maxLength: 20_000 }),
  fc.array(fc.constantFrom('["filemod",1763000000000,"c:\\\\windows\\\\temp\\\\a.tmp"]', '["netconn",1,"10.0.0.1",443]', '日本語'), { maxLength: 2_000 }).map((parts) => parts.join(',')),
  // Incompressible: the deflated bytes run over several output pieces.
  fc.uint8Array({ minLength: 5_000, maxLength: 40_000 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
);

describe('chunk deflate settings', () => {
  it('deflate to the bytes of zlib default output pieces, which inflate back to the chunk', () => {
    const withDefaultPieces = { ...DEFLATE, chunkSize: constants.Z_DEFAULT_CHUNK };
    fc.assert(
      fc.property(text, (chunk) => {
        const deflated = deflateRawSync(chunk, DEFLATE);
        assert.deepEqual(deflated, deflateRawSync(chunk, withDefaultPieces));
        assert.equal(inflateRawSync(deflated).toString(), chunk);
      }),
      { numRuns: 200 },
    );
  });
});
