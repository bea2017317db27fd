/**
 * The value syntax of ingress filters (reference admin §6.2): `rx|` a regular expression,
 * `rxi|` one that ignores case, a path holding `*` or `?` a glob, anything else an exact match.
 * Paths are compared in Unix form (backslashes as slashes, lower case), so `**\/notepad.exe`
 * and `c:\windows\system32\notepad.exe` meet. Everything is compiled once; matching a value is a
 * set lookup or a few regex tests, since it runs for every event.
 */
import { InvalidRequestError } from '../domain/errors.js';

/**
 * How a field's values compare. `path`: globs allowed, exact matches in Unix form. `caseless`:
 * exact matches ignore case (MD5s, domains, IP addresses). `text`: exact matches as written
 * (command lines).
 */
export type ValueKind = 'path' | 'caseless' | 'text';

/** Whether a reported value matches any of a field's filter values. */
export type ValueMatcher = (value: string) => boolean;

/**
 * Carbon Black's regexes are Java patterns, which often open with an inline `(?i)`; JavaScript
 * (before Node 23) has no inline flags, so a leading one becomes the `i` flag.
 */
const JAVA_CASELESS_PREFIX = '(?i)';

/** A glob's wildcards and what each matches; only these are special, the rest is literal. */
const GLOB_TOKEN = /(\*\*\/|\*\*|\*|\?)/;
const GLOB_REGEX: Readonly<Record<string, string>> = {
  '**/': '(?:.*/)?', // any number of directories, none included
  '**': '.*',
  '*': '[^/]*',
  '?': '[^/]',
};

/**
 * The matcher for the values of `field`, or undefined when there are none. An invalid regex is
 * an InvalidRequestError naming the field and the value's index, e.g. `path_filters[2]`.
 */
export function compileValues(field: string, values: readonly string[], kind: ValueKind): ValueMatcher | undefined {
  if (values.length === 0) return undefined;
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  /** Matched against the value in Unix form. */
  const globs: ValueMatcher[] = [];
  values.forEach((value, index) => {
    if (value.startsWith('rxi|')) patterns.push(regex(field, index, value.slice(4), 'i'));
    else if (value.startsWith('rx|')) patterns.push(regex(field, index, value.slice(3), ''));
    else if (kind === 'path' && /[*?]/.test(value)) globs.push(compileGlob(unixForm(value)));
    else exact.add(normalized(kind, value));
  });
  // A path regex sees the path both as reported and with slashes, so it may be written for either.
  const testPatterns = kind === 'path'
    ? (value: string) => patterns.some((pattern) => pattern.test(value)) ||
      (value.includes('\\') && patterns.some((pattern) => pattern.test(slashed(value))))
    : (value: string) => patterns.some((pattern) => pattern.test(value));
  return (value) =>
    (exact.size > 0 && exact.has(normalized(kind, value))) ||
    (globs.length > 0 && globs.some((glob) => glob(unixForm(value)))) ||
    (patterns.length > 0 && testPatterns(value));
}

function regex(field: string, index: number, source: string, flags: string): RegExp {
  const caseless = source.startsWith(JAVA_CASELESS_PREFIX);
  try {
    return new RegExp(caseless ? source.slice(JAVA_CASELESS_PREFIX.length) : source, caseless ? 'i' : flags);
  } catch (error) {
    throw new InvalidRequestError(`${field}[${index}]: invalid regular expression: ${(error as Error).message}`);
  }
}

/**
 * A glob as an anchored regex: `*` and `?` stay within one directory, `**` crosses them. Most
 * paths fail on the literal text before the first wildcard or after the last, which is checked
 * first: far cheaper than the regex.
 */
function compileGlob(glob: string): ValueMatcher {
  const parts = glob.split(GLOB_TOKEN);
  const head = parts[0] ?? '';
  const tail = parts.at(-1) ?? '';
  const regex = new RegExp(`^${parts.map((part, i) => (i % 2 === 1 ? GLOB_REGEX[part] : escapeRegExp(part))).join('')}$`);
  return (value) => value.startsWith(head) && value.endsWith(tail) && regex.test(value);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function normalized(kind: ValueKind, value: string): string {
  if (kind === 'path') return unixForm(value);
  return kind === 'caseless' ? value.toLowerCase() : value;
}

/**
 * Remembers the last value it transformed: the pipeline tests one event's path against every
 * filter in turn, and each would otherwise convert it again.
 */
function lastValueMemo(transform: (value: string) => string): (value: string) => string {
  let lastInput: string | undefined;
  let lastOutput = '';
  return (value) => {
    if (value !== lastInput) {
      lastInput = value;
      lastOutput = transform(value);
    }
    return lastOutput;
  };
}

const slashed = lastValueMemo((path) => path.replaceAll('\\', '/'));

/** A path in Unix form: backslashes as slashes, lower case. */
export const unixForm = lastValueMemo((path) => path.replaceAll('\\', '/').toLowerCase());
