/**
 * Wildcard patterns as the query language writes them: `*` any run of characters (also none),
 * `?` exactly one. Shared by the analyzer and by whatever matches values in memory, so both
 * read a pattern the same way.
 */

export function hasWildcard(value: string): boolean {
  return value.includes('*') || value.includes('?');
}

export function startsWithWildcard(value: string): boolean {
  return value.startsWith('*') || value.startsWith('?');
}

/** The literal text before a pattern's only wildcard, when the pattern is `literal*`. */
export function prefixOf(pattern: string): string | undefined {
  const star = pattern.indexOf('*');
  return star === pattern.length - 1 && !pattern.includes('?') ? pattern.slice(0, -1) : undefined;
}

/** Collapses runs of `*`; `a**b` and `a*b` mean the same. */
export function canonicalGlob(pattern: string): string {
  return pattern.replace(/\*{2,}/g, '*');
}

/** A RegExp matching whole strings against the pattern (case as given). */
export function globToRegExp(pattern: string): RegExp {
  const body = [...pattern]
    // Only syntax characters may be escaped in a `u` RegExp (`\-` is an error there).
    .map((char) => (char === '*' ? '[\\s\\S]*' : char === '?' ? '[\\s\\S]' : char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'u');
}

export function matchesGlob(value: string, pattern: string): boolean {
  return globToRegExp(pattern).test(value);
}
