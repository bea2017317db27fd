/**
 * Binary fields as conditions on a row of `binaries` (alias given): hashes and sizes are columns,
 * version information and signatures are read from the metadata JSON the sensor sent, and where a
 * binary was seen (observed_filename, hostname, group, os_type, host_count) from its observations.
 * Used by binary search and, through a join on md5, by process search. Each dialect's subclass
 * says how it reads the metadata JSON (sqlite-binary.ts, postgres-binary.ts).
 */
import type { FieldPredicate, Match, Predicate } from '../analysis.js';
import { METADATA_PATH } from '../binary-metadata.js';
import { raw, sql, type Fragment } from './fragment.js';
import { ConditionCompiler, loweredColumnIn, rangeColumnIn, type ConditionDialect } from './shared-conditions.js';
import type { CompiledCondition } from './shared-process.js';
import { binaryTagConditionIn } from './shared-tags.js';

export interface BinaryScope {
  /** Where-seen fields count only observations on sensors of these groups (all when absent). */
  readonly observedInGroups?: readonly number[] | undefined;
}

/** A binary search's condition on the row `b` (a binary search never reads segments). */
export function compileBinaryWith(compiler: BinaryConditionCompiler, predicate: Predicate): CompiledCondition {
  const fragment = compiler.condition(predicate);
  return { sql: fragment.text, params: fragment.params, readsSegments: false };
}

/** One metadata value as SQL expressions. */
export interface MetadataValue {
  /** The JSON value, SQL NULL when the sensor did not send it. */
  readonly json: Fragment;
  /** Its text, for strings. */
  readonly text: string;
  /** It as a number. */
  readonly number: string;
}

export abstract class BinaryConditionCompiler extends ConditionCompiler {
  constructor(dialect: ConditionDialect, private readonly alias: string, private readonly scope: BinaryScope) {
    super(dialect);
  }

  /** The metadata value at a JSON path of binary-metadata.ts (`$.digsig.result`). */
  protected abstract metadataValue(metadata: string, path: string): MetadataValue;
  /** The value is the JSON boolean `flag` (absent counts as false). */
  protected abstract flagIs(value: MetadataValue, flag: boolean): Fragment;
  /** Text fields (values/text.ts): the query's tokens at consecutive positions of the value's tokens. */
  protected abstract textTokens(value: MetadataValue, tokens: readonly string[], wildcard: boolean): Fragment;

  protected override dynamicField(predicate: FieldPredicate): Fragment {
    return binaryTagConditionIn(this.dialect, predicate, this.alias);
  }

  protected field(predicate: FieldPredicate): Fragment {
    const { field, match } = predicate;
    const { dialect } = this;
    const b = this.alias;
    switch (field) {
      case 'md5':
      case 'sha256':
        return loweredColumnIn(dialect, `${b}.${field}`, match);
      case 'orig_mod_len':
        return rangeColumnIn(dialect, `${b}.size`, match);
      case 'copied_mod_len':
        return rangeColumnIn(dialect, `${b}.stored_size`, match);
      case 'server_added_timestamp':
        return rangeColumnIn(dialect, `${b}.first_seen_ms`, match);
      case 'host_count':
        return rangeColumnIn(dialect, `(SELECT count(DISTINCT o.sensor_id) FROM binary_observations o WHERE o.md5 = ${b}.md5${this.scoped()})`, match);
      case 'observed_filename':
        return this.observed(this.observedPath(match));
      case 'hostname':
        return this.observed(dialect.keyword('se.computer_name', match));
      case 'os_type':
        return this.observed(dialect.keyword('se.os_type', match));
      case 'group':
        return this.observed(sql`se.group_id IN (SELECT id FROM sensor_groups WHERE ${dialect.keyword('name', match)})`);
      case 'tampered':
        return match.kind === 'bool' && !match.value ? dialect.true : dialect.false;
      default:
        return this.metadata(field, match);
    }
  }

  private metadata(field: string, match: Match): Fragment {
    const path = METADATA_PATH[field];
    if (!path) return this.dialect.false;
    const value = this.metadataValue(`${this.alias}.metadata`, path);
    if (match.kind === 'exists') return field === 'digsig_result' ? this.dialect.true : sql`${value.json} IS NOT NULL`;
    switch (field) {
      case 'digsig_result':
        return match.kind === 'exact' ? sql`lower(coalesce(${raw(value.text)}, '')) = ${match.value}` : this.dialect.keyword(`coalesce(${value.text}, '')`, match);
      case 'digsig_sign_time':
        return sql`(${value.json} IS NOT NULL AND ${rangeColumnIn(this.dialect, value.number, match)})`;
      case 'is_64bit':
      case 'is_executable_image':
        return match.kind === 'bool' ? this.flagIs(value, match.value) : this.dialect.false;
      default:
        return match.kind === 'tokens' ? this.textTokens(value, match.tokens, match.wildcard) : this.dialect.false;
    }
  }

  /** Whether one of the binary's observations (with its sensor as `se`) satisfies the condition. */
  private observed(condition: Fragment): Fragment {
    return sql`EXISTS (SELECT 1 FROM binary_observations o JOIN sensors se ON se.id = o.sensor_id WHERE o.md5 = ${raw(this.alias)}.md5${raw(this.scoped())} AND ${condition})`;
  }

  private scoped(): string {
    const groups = this.scope.observedInGroups;
    if (!groups) return '';
    // Group ids are integers the server chose, not user text, so they may be written inline.
    return ` AND o.sensor_id IN (SELECT id FROM sensors WHERE group_id IN (${groups.map((g) => Math.trunc(g)).join(', ') || 'NULL'}))`;
  }

  private observedPath(match: Match): Fragment {
    switch (match.kind) {
      case 'exists':
        return this.dialect.true;
      case 'subpath':
        return this.dialect.subPath('o.observed_filename', match.value);
      case 'subpath_wildcard':
        return this.dialect.subPathPattern('o.observed_filename', match.pattern);
      default:
        return this.dialect.false;
    }
  }
}
