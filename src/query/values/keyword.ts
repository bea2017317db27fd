/**
 * Keyword values (reference §5.1): one untokenized value, matched case-insensitively. The index
 * side stores normalizeKeyword(value); the query side compares against the same.
 */
export function normalizeKeyword(value: string): string {
  return value.normalize('NFC').toLowerCase();
}

const HEX = /^[0-9a-f]*$/;

/** md5 (32 hex digits) and sha256 (64), lower-case (reference §5.3). */
export function normalizeHash(value: string, digits: 32 | 64): string | undefined {
  const hash = value.toLowerCase();
  return hash.length === digits && HEX.test(hash) ? hash : undefined;
}

/** Whether a hash pattern's literal characters could belong to a hash of that length. */
export function isHashPattern(pattern: string, digits: 32 | 64): boolean {
  const literal = pattern.replace(/[*?]/g, '');
  return HEX.test(literal.toLowerCase()) && pattern.replace(/\*/g, '').length <= digits;
}
