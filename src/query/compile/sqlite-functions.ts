/**
 * The SQL functions the SQLite compiler's output calls, as plain JavaScript over the same value
 * helpers the index writer uses, so a stored value and a query compare exactly as the language
 * says (Unicode case folding, path normal form, tokenizers). A reader connection registers them
 * (`connection.function(name, { deterministic: true }, fn)`); they run only on candidate rows or
 * on distinct values, never as the way to find rows. Each returns 1 or 0, never NULL, so NOT
 * around them means what it says.
 */
import { cmdlineTokens, type PositionedToken } from '../values/cmdline.js';
import { globToRegExp } from '../values/glob.js';
import { normalizeKeyword } from '../values/keyword.js';
import { matchesSubPath, normalizePath, pathSubPaths } from '../values/path.js';
import { textTokens } from '../values/text.js';

type SqlValue = string | number | bigint | Buffer | null;

const PATTERNS = new Map<string, RegExp>();

function regExpOf(pattern: string): RegExp {
  let regExp = PATTERNS.get(pattern);
  if (!regExp) {
    if (PATTERNS.size > 1_000) PATTERNS.clear();
    regExp = globToRegExp(pattern);
    PATTERNS.set(pattern, regExp);
  }
  return regExp;
}

const text = (value: SqlValue): string => (value === null ? '' : String(value));
const bit = (yes: boolean): number => (yes ? 1 : 0);

/** Whether the stored value, case-folded, equals the normalized query value. */
function keyword(value: SqlValue, expected: SqlValue): number {
  return bit(normalizeKeyword(text(value)) === text(expected));
}

/** Whether the stored value, case-folded, matches the query pattern (`*`, `?`). */
function glob(value: SqlValue, pattern: SqlValue): number {
  return bit(regExpOf(text(pattern)).test(normalizeKeyword(text(value))));
}

/** Path fields: the stored path is the query sub-path or ends with a separator and it. */
function subpath(value: SqlValue, query: SqlValue, registry: SqlValue): number {
  return bit(matchesSubPath(normalizePath(text(value), { registry: registry === 1 }), text(query)));
}

/** Path fields: the stored path or one of its trailing sub-paths matches the pattern. */
function subpathGlob(value: SqlValue, pattern: SqlValue, registry: SqlValue): number {
  const regExp = regExpOf(text(pattern));
  return bit(pathSubPaths(normalizePath(text(value), { registry: registry === 1 })).some((sub) => regExp.test(sub)));
}

/**
 * Text and command-line fields: the query's tokens (JSON array) at consecutive positions of the
 * stored value's tokens; with `wildcard` each query token is a pattern for one token.
 */
function tokens(value: SqlValue, kind: SqlValue, queryJson: SqlValue, wildcard: SqlValue): number {
  const query = JSON.parse(text(queryJson)) as string[];
  const stored: PositionedToken[] = kind === 'cmdline'
    ? cmdlineTokens(text(value))
    : textTokens(text(value)).map((token, position) => ({ text: token, position }));
  const matchers = query.map((token) => (wildcard === 1 ? (t: string) => regExpOf(token).test(t) : (t: string) => t === token));
  const at = new Map<number, string[]>();
  for (const token of stored) {
    const list = at.get(token.position);
    if (list) list.push(token.text);
    else at.set(token.position, [token.text]);
  }
  for (const start of at.keys()) {
    if (matchers.every((matches, i) => at.get(start + i)?.some(matches) ?? false)) return 1;
  }
  return 0;
}

/** Command lines: whether a word's extension (from its last dot, a character or more in) matches the pattern. */
function extensionGlob(value: SqlValue, pattern: SqlValue): number {
  const word = text(value);
  const dot = word.lastIndexOf('.');
  return bit(dot >= 1 && dot < word.length - 1 && regExpOf(text(pattern)).test(word.slice(dot)));
}

export const SQLITE_FUNCTIONS: Readonly<Record<string, (...args: SqlValue[]) => number>> = {
  vigil_keyword: keyword,
  vigil_glob: glob,
  vigil_subpath: subpath,
  vigil_subpath_glob: subpathGlob,
  vigil_tokens: tokens,
  vigil_extension_glob: extensionGlob,
};
