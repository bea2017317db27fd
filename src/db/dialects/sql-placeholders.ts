/**
 * Stores write `?` placeholders, as SQLite takes them; PostgreSQL numbers them (`$1`, `$2`, …).
 * A `?` inside a string literal, a quoted identifier or a comment is text, not a placeholder.
 * Stores use a small fixed set of statements, so each text is translated once and remembered.
 */
const translated = new Map<string, string>();
const MOST_REMEMBERED = 4_096;

export function positionalPlaceholders(sql: string): string {
  let result = translated.get(sql);
  if (result === undefined) {
    result = translate(sql);
    // Statements built per call (IN lists of varying length) would otherwise grow this forever.
    if (translated.size >= MOST_REMEMBERED) translated.clear();
    translated.set(sql, result);
  }
  return result;
}

function translate(sql: string): string {
  let out = '';
  let next = 1;
  for (let i = 0; i < sql.length; i += 1) {
    const char = sql[i]!;
    if (char === "'" || char === '"') {
      const end = closingQuote(sql, i, char);
      out += sql.slice(i, end + 1);
      i = end;
    } else if (char === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (char === '?') {
      out += `$${next}`;
      next += 1;
    } else {
      out += char;
    }
  }
  return out;
}

/** The index of the quote that closes the one at `start` (a doubled quote is an escaped one). */
export function closingQuote(sql: string, start: number, quote: string): number {
  for (let i = start + 1; i < sql.length; i += 1) {
    if (sql[i] !== quote) continue;
    if (sql[i + 1] === quote) i += 1;
    else return i;
  }
  return sql.length - 1;
}
