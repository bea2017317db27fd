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
    const last = sealed.at(-1) === 'A' ? 'B' : 'A';
    assert.throws(() => box.open(sealed.slice(0, -1) + last, 'install-code'), SecretUnreadableError);
    assert.throws(() => box.open('plain text', 'install-code'), SecretUnreadableError);
  });

  it('hashes for lookups the same way each time, differently under another key', () => {
    assert.equal(box.lookupHash('code', 'install-code'), box.lookupHash('code', 'install-code'));
    assert.notEqual(box.lookupHash('code', 'install-code'), new SecretBox(randomBytes(32)).lookupHash('code', 'install-code'));
  });
});
