/**
 * SQL text with its bound parameters kept in order. Compilers build statements from fragments, so
 * a user value can only ever enter SQL as a `?` placeholder (house rule 7).
 */
export type SqlParam = string | number | bigint;

export class Fragment {
  constructor(readonly text: string, readonly params: readonly SqlParam[] = []) {}
}

/** `sql\`p.md5 = ${value}\``: values become placeholders, nested fragments are spliced in. */
export function sql(strings: TemplateStringsArray, ...values: readonly (Fragment | SqlParam)[]): Fragment {
  let text = strings[0]!;
  const params: SqlParam[] = [];
  values.forEach((value, i) => {
    if (value instanceof Fragment) {
      text += value.text;
      params.push(...value.params);
    } else {
      text += '?';
      params.push(value);
    }
    text += strings[i + 1]!;
  });
  return new Fragment(text, params);
}

/** Trusted SQL text: identifiers and keywords chosen by the compiler, never user input. */
export function raw(text: string): Fragment {
  return new Fragment(text);
}

export function joinFragments(parts: readonly Fragment[], separator: string): Fragment {
  return new Fragment(parts.map((p) => p.text).join(separator), parts.flatMap((p) => p.params));
}

export const TRUE = raw('1');
export const FALSE = raw('0');

/** GLOB's special characters in a literal, each as a one-character class. */
export function globLiteral(text: string): string {
  return text.replace(/[[*?]/gu, (char) => `[${char}]`);
}

/** A query pattern (`*`, `?` wildcards, everything else literal) as a GLOB pattern. */
export function globPattern(pattern: string): string {
  return pattern.replace(/\[/gu, '[[]');
}
