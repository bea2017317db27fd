/**
 * Predicates → SQL for the embedded (SQLite) store: the shared compilers (shared-process.ts,
 * shared-binary.ts, which document where each field lives) with SQLite's term lookups. Event
 * fields, and the command line's tokens, are terms of the dictionary `event_terms` whose postings
 * name segments (src/ingest/terms.ts stores them in the query's normal form, so exact and prefix
 * matches use the dictionary's index and patterns scan one field's distinct values; command-line
 * words are posted per process, in process_postings). Mixed-case fields and paths are matched
 * with the functions of sqlite-functions.ts.
 *
 * A search collects each event field's segments from the postings (`s.id IN (…)`); a probe looks
 * each segment up in them.
 */
import type { Match, Predicate } from '../analysis.js';
import { globLiteral, globPattern, joinFragments, raw, sql, type Fragment } from './fragment.js';
import { BinaryConditions, type BinaryScope } from './sqlite-binary.js';
import { isExtensionToken } from '../values/cmdline.js';
import { compileBinaryWith } from './shared-binary.js';
import {
  compileProcessWith, ProcessConditionCompiler, type CompiledCondition, type ProcessCompileOptions, type TermSpec,
} from './shared-process.js';
import { dictionaryValue } from './shared-terms.js';
import { SQLITE } from './sqlite-shared.js';

export type { CompiledCondition, ProcessCompileOptions } from './shared-process.js';
export { EVENT_MD5_FIELDS, SHA256_THROUGH_MD5 } from './shared-process.js';

export function compileProcessCondition(predicate: Predicate, options: ProcessCompileOptions = {}): CompiledCondition {
  return compileProcessWith(new ProcessCompiler(options.probe === true), predicate);
}

export function compileBinaryCondition(predicate: Predicate, scope: BinaryScope = {}): CompiledCondition {
  return compileBinaryWith(new BinaryConditions('b', scope), predicate);
}

class ProcessCompiler extends ProcessConditionCompiler {
  constructor(probe: boolean) {
    super(SQLITE, new BinaryConditions('b', {}), probe);
  }

  protected eventTerms(fields: readonly string[], spec: TermSpec): Fragment {
    if (spec.kind === 'any') return termIds(fields, undefined);
    return termIds(fields, spec.kind === 'where' ? spec.condition : termValue(spec.field, spec.match));
  }

  protected segmentsHolding(terms: Fragment): Fragment {
    return this.probe
      ? sql`EXISTS (SELECT 1 FROM event_postings WHERE term_id IN (${terms}) AND segment_row = s.id)`
      : sql`s.id IN (SELECT segment_row FROM event_postings WHERE term_id IN (${terms}))`;
  }

  /** Tokens are found through the dictionary and its postings per process (the words come from the process's start). */
  protected cmdlineWord(token: string, wildcard: boolean): Fragment {
    const terms = termIds(['cmdline'], tokenValue(token, wildcard));
    return this.probe
      ? sql`EXISTS (SELECT 1 FROM process_postings WHERE term_id IN (${terms}) AND process_row = p.id)`
      : sql`p.id IN (SELECT process_row FROM process_postings WHERE term_id IN (${terms}))`;
  }

  protected cmdlinePhrase(tokens: readonly string[], wildcard: boolean): Fragment {
    return sql`vigil_tokens(p.cmdline, 'cmdline', ${JSON.stringify(tokens)}, ${wildcard ? 1 : 0})`;
  }
}

/** The dictionary ids of a term field's values (every value when `match` is undefined). */
function termIds(fields: readonly string[], match: Fragment | undefined): Fragment {
  const fieldList = fields.length === 1 ? sql`field = ${fields[0]!}` : sql`field IN (${joinFragments(fields.map((f) => sql`${f}`), ', ')})`;
  return match ? sql`SELECT id FROM event_terms WHERE ${fieldList} AND ${match}` : sql`SELECT id FROM event_terms WHERE ${fieldList}`;
}

/** A condition on a dictionary `value` (stored in the query's normal form), or undefined for "any value". */
export function termValue(field: string, match: Match): Fragment | undefined {
  return dictionaryValue(SQLITE, raw('CAST(value AS INTEGER)'), field, match);
}

/**
 * One command-line token among the indexed words. An extension token (`.dll`) is not indexed on
 * its own: it is found as the words ending in it, and a pattern of one (`.d*`) is checked on each
 * word's last dot.
 */
export function tokenValue(token: string, wildcard: boolean): Fragment {
  const pattern = wildcard && /[*?]/u.test(token);
  if (isExtensionToken(token)) {
    return pattern
      ? sql`(value GLOB ${globPattern(token)} OR vigil_extension_glob(value, ${token}))`
      : sql`(value = ${token} OR value GLOB ${`?*${globLiteral(token)}`})`;
  }
  return pattern ? sql`value GLOB ${globPattern(token)}` : sql`value = ${token}`;
}
