/**
 * The lexer: query text → tokens with positions. Whitespace separates tokens; `(`, `)` and quotes
 * end a word. After `field:` (optionally followed by spaces, as in `cmdline: dcsync`) one value is
 * read in value mode, where `-`, `AND`/`OR`/`NOT` and further colons are plain characters; that is
 * what lets `start:-24h`, `cmdline:http:\` and `ipv6addr:fe00:b9::0/50` through unescaped.
 *
 * Escapes (reference §1 and decision 3 of §8): a backslash escapes whitespace, `(`, `)`, `"`
 * (and the curly quotes), `:` and itself. Before any other character it is a literal backslash,
 * because Carbon Black's own examples write path separators undoubled: `c:\windows\*` is the
 * folder followed by a wildcard, not an escaped star.
 */
import type { RangeBound, Span } from './ast.js';
import { QueryError } from './errors.js';

export type Token =
  | { readonly type: 'lparen' | 'rparen' | 'minus' | 'and' | 'or' | 'not' | 'eof'; readonly span: Span }
  | { readonly type: 'field'; readonly name: string; readonly span: Span }
  | { readonly type: 'word'; readonly value: string; readonly span: Span }
  | { readonly type: 'phrase'; readonly value: string; readonly span: Span }
  | {
      readonly type: 'range';
      readonly lower: RangeBound | null;
      readonly upper: RangeBound | null;
      readonly span: Span;
    };

/** Straight and curly double quotes all open and close phrases (decision 4 of §8). */
export const QUOTES = new Set(['"', '\u201C', '\u201D']);

/** A field name: at least two characters, so a drive letter (`c:\windows`) is never a field. */
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]+$/;

/** Operators in any case (reference §1): `and`, `AND`, `Or`, … */
const KEYWORDS = new Map<string, 'and' | 'or' | 'not'>([['and', 'and'], ['or', 'or'], ['not', 'not']]);

export function isSpace(char: string): boolean {
  return /\s/u.test(char);
}

/** Characters a backslash escapes; before anything else a backslash is itself. */
export function isEscapable(char: string): boolean {
  return isSpace(char) || char === '(' || char === ')' || char === ':' || char === '\\' || QUOTES.has(char);
}

export function tokenize(input: string, source = 'q'): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  let valueMode = false;

  const fail = (detail: string, position: number): never => {
    throw new QueryError('syntax', detail, position, source);
  };
  const skipSpaces = () => {
    while (i < input.length && isSpace(input[i]!)) i++;
  };

  /** Reads an escaped run of characters up to one that `stop` accepts (or the end). */
  const readRun = (stop: (char: string) => boolean, onColon?: (soFar: string) => boolean): string => {
    let value = '';
    while (i < input.length) {
      const char = input[i]!;
      if (stop(char)) break;
      if (char === '\\' && i + 1 < input.length && isEscapable(input[i + 1]!)) {
        value += input[i + 1];
        i += 2;
        continue;
      }
      if (char === ':' && onColon?.(value)) break;
      value += char;
      i++;
    }
    return value;
  };

  const readPhrase = (): { value: string; span: Span } => {
    const start = i++;
    const value = readRun((char) => QUOTES.has(char));
    if (i >= input.length) fail('Unterminated phrase: the quote is never closed (\\" inside a phrase is a literal quote)', start);
    i++;
    return { value, span: { start, end: i } };
  };

  const readBound = (): RangeBound | null => {
    const start = i;
    if (i < input.length && QUOTES.has(input[i]!)) {
      const phrase = readPhrase();
      return { value: phrase.value, quoted: true, span: phrase.span };
    }
    const value = readRun((char) => isSpace(char) || char === ']');
    if (value === '') fail('Expected a range bound', start);
    return value === '*' ? null : { value, quoted: false, span: { start, end: i } };
  };

  const readRange = (): Token => {
    const start = i++;
    skipSpaces();
    const lower = readBound();
    const afterLower = i;
    skipSpaces();
    if (i === afterLower || input.slice(i, i + 2).toUpperCase() !== 'TO' || !isSpace(input[i + 2] ?? '')) {
      fail('Expected " TO " in a range written [a TO b] (quote a value that starts with "[")', i);
    }
    i += 2;
    skipSpaces();
    const upper = readBound();
    skipSpaces();
    if (input[i] !== ']') fail(`Expected "]" to close the range opened at position ${start}`, i);
    i++;
    return { type: 'range', lower, upper, span: { start, end: i } };
  };

  while (true) {
    skipSpaces();
    if (i >= input.length) break;
    const start = i;
    const char = input[i]!;
    const inValue = valueMode;
    valueMode = false;
    if (char === '(' || char === ')') {
      i++;
      tokens.push({ type: char === '(' ? 'lparen' : 'rparen', span: { start, end: i } });
    } else if (QUOTES.has(char)) {
      tokens.push({ type: 'phrase', ...readPhrase() });
    } else if (char === '[') {
      tokens.push(readRange());
    } else if (char === '-' && !inValue) {
      i++;
      tokens.push({ type: 'minus', span: { start, end: i } });
    } else {
      let isField = false;
      const value = readRun(
        (c) => isSpace(c) || c === '(' || c === ')' || QUOTES.has(c),
        (soFar) => (isField = !inValue && FIELD_NAME.test(soFar)),
      );
      const span = { start, end: i };
      const keyword = inValue ? undefined : KEYWORDS.get(value.toLowerCase());
      if (isField) {
        i++;
        tokens.push({ type: 'field', name: value.toLowerCase(), span });
        valueMode = true;
      } else if (keyword) {
        tokens.push({ type: keyword, span });
      } else {
        tokens.push({ type: 'word', value, span });
      }
    }
  }
  tokens.push({ type: 'eof', span: { start: input.length, end: input.length } });
  return tokens;
}
