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

/** Longest run of conditions joined flat; a few, so that common queries read as written. */
const FLAT_RUN = 8;

/**
 * Conditions joined by AND or OR, as a balanced tree of parenthesized halves once there are more
 * than a few. SQLite parses a flat `a AND b AND …` into a tree as deep as the chain is long and
 * refuses expressions deeper than 1,000 (SQLITE_MAX_EXPR_DEPTH), so a query of a thousand terms
 * failed; halves keep the depth near log2 of the count. SQLite splits nested ANDs (and ORs) into
 * the same terms as a flat chain, so the plan does not change.
 */
export function joinConditions(parts: readonly Fragment[], operator: 'AND' | 'OR'): Fragment {
  if (parts.length <= FLAT_RUN) return joinFragments(parts, ` ${operator} `);
  const middle = Math.ceil(parts.length / 2);
  const half = (run: readonly Fragment[]) => (run.length === 1 ? run[0]! : sql`(${joinConditions(run, operator)})`);
  return sql`${half(parts.slice(0, middle))} ${raw(operator)} ${half(parts.slice(middle))}`;
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
