/** LIKE patterns with a backslash as their escape character (ESCAPE '\\'). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** The query language's `*` and `?` as a LIKE pattern. */
export function globToLike(pattern: string): string {
  return [...pattern].map((char) => (char === '*' ? '%' : char === '?' ? '_' : escapeLike(char))).join('');
}
