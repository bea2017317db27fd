import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../src/db/secrets/secret-box.js';

/** A SecretBox under a fresh random key, for stores that seal what they keep. */
export function testSecretBox(): SecretBox {
  return new SecretBox(randomBytes(32));
}
