/**
 * API tokens and passwords. A token is never stored: it is the HMAC of a per-user salt under a
 * key kept in the data dir, so the server can show it again (`vigil token`, GET /api/user) while
 * the database alone reveals nothing. The database keeps SHA-256(token) to find its owner.
 * Passwords are hashed with scrypt.
 */
import { createHash, createHmac, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keyLength: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** Carbon Black API tokens are 40 lowercase hex characters. */
export const TOKEN_PATTERN = /^[0-9a-f]{40}$/;

export function newTokenSalt(): string {
  return randomBytes(16).toString('hex');
}

export function deriveToken(key: Buffer, salt: string): string {
  return createHmac('sha256', key).update(salt).digest('hex').slice(0, 40);
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 64 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keyLength } = SCRYPT;
  const hash = await scrypt(password, salt, keyLength, { N, r, p, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', N, r, p, salt.toString('hex'), hash.toString('hex')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, expected] = stored.split('$');
  if (scheme !== 'scrypt' || !N || !r || !p || !salt || !expected) return false;
  const options = { N: Number(N), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 };
  const actual = await scrypt(password, Buffer.from(salt, 'hex'), expected.length / 2, options);
  return digestsEqual(actual.toString('hex'), expected);
}
