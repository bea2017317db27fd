/**
 * Seals the secrets the database keeps (install codes, feed passwords and client keys) with
 * AES-256-GCM under a key that lives in its own file, so a copy of the database alone reveals none
 * of them (docs/adr/0015-secrets-at-rest.md). Each value is bound to its purpose (the AAD), so a
 * sealed feed password cannot be moved into an install code's column and opened there.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Where a sealed value belongs; opening it as anything else fails. */
export type SecretPurpose = 'install-code' | 'ingest-key' | 'feed-password' | 'feed-client-key' | 'key-check' | 'token-key';

/** The stored value does not open under this key: another key sealed it, or it was altered. */
export class SecretUnreadableError extends Error {}

export class SecretBox {
  private readonly sealKey: Buffer;
  private readonly lookupKey: Buffer;

  /** `masterKey`: 32 random bytes; separate keys for sealing and for lookups are derived from it. */
  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new RangeError('the secret key must be 32 bytes');
    this.sealKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'vigil secrets: seal', 32));
    this.lookupKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'vigil secrets: lookup', 32));
  }

  /** `v1.<base64url of iv, tag and ciphertext>`: a fresh IV each time, so equal secrets seal differently. */
  seal(plaintext: string, purpose: SecretPurpose): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${FORMAT}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  open(sealed: string, purpose: SecretPurpose): string {
    const [format, encoded] = sealed.split('.');
    const raw = Buffer.from(encoded ?? '', 'base64url');
    if (format !== FORMAT || raw.length < IV_BYTES + TAG_BYTES) throw new SecretUnreadableError(`not a sealed ${purpose}`);
    const decipher = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(purpose));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError(`a sealed ${purpose} does not open with this key`);
    }
  }

  /**
   * A keyed hash to find a row by a secret's value (a sensor presents its install code) without
   * storing the value: the same input always gives the same hash, and without the key it cannot
   * be recomputed from a guess.
   */
  lookupHash(value: string, purpose: SecretPurpose): string {
    return createHmac('sha256', this.lookupKey).update(purpose).update('\0').update(value, 'utf8').digest('hex');
  }
}
