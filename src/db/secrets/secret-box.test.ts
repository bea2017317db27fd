import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { SecretBox, SecretUnreadableError } from './secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed, and seals the same secret differently each time', () => {
    const sealed = box.seal('pässword', 'feed-password');
    assert.equal(box.open(sealed, 'feed-password'), 'pässword');
    assert.notEqual(box.seal('pässword', 'feed-password'), sealed);
    assert.ok(!sealed.includes('pässword'));
  });

  it('refuses a value sealed under another key, for another purpose, or altered', () => {
    const sealed = box.seal('code', 'install-code');
    assert.throws(() => new SecretBox(randomBytes(32)).open(sealed, 'install-code'), SecretUnreadableError);
    assert.throws(() => box.open(sealed, 'feed-password'), SecretUnreadableError);
    // One bit of the ciphertext flipped in the decoded bytes: changing the last base64 character
    // instead changed, one time in sixteen, only bits that base64 drops.
    const [format, encoded] = sealed.split('.');
    const raw = Buffer.from(encoded!, 'base64url');
    raw[raw.length - 1]! ^= 1;
    assert.throws(() => box.open(`${format}.${raw.toString('base64url')}`, 'install-code'), SecretUnreadableError);
    assert.throws(() => box.open('plain text', 'install-code'), SecretUnreadableError);
  });

  it('hashes for lookups the same way each time, differently under another key', () => {
    assert.equal(box.lookupHash('code', 'install-code'), box.lookupHash('code', 'install-code'));
    assert.notEqual(box.lookupHash('code', 'install-code'), new SecretBox(randomBytes(32)).lookupHash('code', 'install-code'));
  });
});
