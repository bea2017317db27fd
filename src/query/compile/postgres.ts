/**
 * Predicates → SQL for the PostgreSQL store (schema version 2, docs/adr/0019-postgres-event-store.md).
 * The shared compilers (shared-process.ts, shared-binary.ts, which document where each field
 * lives) with PostgreSQL's term lookups:
 *
 * - a segment's event terms are `field:value` strings in the GIN-indexed arrays of
 *   `segment_terms`: an exact value is looked up as itself (`terms && ARRAY['domain:x']`), a
 *   pattern or range first selects the values it matches from the dictionary `event_terms`
 *   (C collation: prefixes through its B-tree, other patterns through trigrams);
 * - command-line words are an array on the process row (`p.cmdline_words`);
 * - segments are found by (sensor_id, id), their key, so the lookups stay on one shard when the
 *   tables are distributed by sensor.
 *
 * Matching rules PostgreSQL has no function for are written as SQL (postgres-shared.ts). A
 * phrase of several command-line words is checked as the words (all present) and a regular
 * expression over the command line with the tokenizer's separators between them; it can accept
 * a command line that the tokenizer would split differently (`/` and `:` inside words).
 */
import type { Predicate } from '../analysis.js';
import { isExtensionToken } from '../values/cmdline.js';
import { sql, type Fragment } from './fragment.js';
import { PostgresBinaryConditions, type BinaryScope } from './postgres-binary.js';
import { likeLiteral, likePattern, POSTGRES, regexBody } from './postgres-shared.js';
import { termValue } from './postgres-terms.js';
import { compileBinaryWith } from './shared-binary.js';
import {
  compileProcessWith, ProcessConditionCompiler, type CompiledCondition, type ProcessCompileOptions, type TermSpec,
} from './shared-process.js';

export type { CompiledCondition, ProcessCompileOptions } from './shared-process.js';

export function compilePostgresProcessCondition(predicate: Predicate, options: ProcessCompileOptions = {}): CompiledCondition {
  return compileProcessWith(new ProcessCompiler(options.probe === true), predicate);
}

export function compilePostgresBinaryCondition(predicate: Predicate, scope: BinaryScope = {}): CompiledCondition {
  return compileBinaryWith(new PostgresBinaryConditions('b', scope), predicate);
}

/** The characters that separate command-line tokens (values/cmdline.ts), inside a regular expression's brackets. */
const CMDLINE_SEPARATOR_CHARS = `\\\\"'()[\\]{},=<>&|;\u201C\u201D\u2018\u2019[:space:]/:`;
const CMDLINE_SEPARATORS = `[${CMDLINE_SEPARATOR_CHARS}]+`;

class ProcessCompiler extends ProcessConditionCompiler {
  constructor(probe: boolean) {
    super(POSTGRES, new PostgresBinaryConditions('b', {}), probe);
  }

  protected eventTerms(fields: readonly string[], spec: TermSpec): Fragment {
    return termValue(fields, spec).array;
  }

  protected segmentsHolding(terms: Fragment): Fragment {
    return this.probe
      ? sql`EXISTS (SELECT 1 FROM segment_terms t WHERE t.sensor_id = s.sensor_id AND t.segment_row = s.id AND t.segment_id = s.segment_id AND t.terms && ${terms})`
      : sql`(s.sensor_id, s.id) IN (SELECT sensor_id, segment_row FROM segment_terms WHERE terms && ${terms})`;
  }

  protected cmdlineWord(token: string, wildcard: boolean): Fragment {
    return sql`p.cmdline_words && ${tokenWords(token, wildcard)}`;
  }

  protected cmdlinePhrase(tokens: readonly string[], wildcard: boolean): Fragment {
    const word = (t: string) => (wildcard ? regexBody(t, `[^${CMDLINE_SEPARATOR_CHARS}]`) : regexBody(t));
    const phrase = `(^|${CMDLINE_SEPARATORS})${tokens.map(word).join(CMDLINE_SEPARATORS)}(${CMDLINE_SEPARATORS}|$)`;
    return sql`lower(normalize(p.cmdline, NFC)) ~ ${phrase}`;
  }
}

/**
 * One command-line token as the words it stands for. An extension token (`.dll`) is not a word
 * of its own: it is found as the words ending in it, and a pattern of one (`.d*`) on each word's
 * last dot.
 */
function tokenWords(token: string, wildcard: boolean): Fragment {
  const pattern = wildcard && /[*?]/u.test(token);
  if (!pattern && !isExtensionToken(token)) return sql`ARRAY[${token}]::text[]`;
  const words = (condition: Fragment) => sql`ARRAY(SELECT value FROM event_terms WHERE field = 'cmdline' AND ${condition})`;
  if (!isExtensionToken(token)) return words(sql`value LIKE ${likePattern(token)}`);
  return pattern
    ? words(sql`(value LIKE ${likePattern(token)} OR value ~ ${`^.+${regexBody(token, '[^.]')}$`})`)
    : words(sql`(value = ${token} OR value LIKE ${`_%${likeLiteral(token)}`})`);
}
