/**
 * Binary fields on PostgreSQL as conditions on a row of `binaries` (alias given), read as
 * sqlite-binary.ts reads them (which documents the fields): metadata from its JSON text through
 * jsonb, where-seen fields from the observations.
 */
import type { FieldPredicate, Match } from '../analysis.js';
import { raw, sql, type Fragment } from './fragment.js';
import {
  keywordCondition, loweredColumn, PG_FALSE, PG_TRUE, PostgresCompiler, rangeColumn, subPath, subPathPattern, textTokensCondition,
} from './postgres-shared.js';
import { binaryTagCondition } from './postgres-tags.js';

/** Metadata JSON paths of the fields a sensor reports about a file (sensor-protocol.schemas.ts). */
const METADATA_PATH: Readonly<Record<string, readonly string[]>> = {
  comments: ['comments'], company_name: ['company_name'], file_desc: ['file_desc'], file_version: ['file_version'],
  internal_name: ['internal_name'], legal_copyright: ['legal_copyright'], legal_trademark: ['legal_trademark'],
  original_filename: ['original_filename'], private_build: ['private_build'], special_build: ['special_build'],
  product_desc: ['product_desc'], product_name: ['product_name'], product_version: ['product_version'],
  digsig_issuer: ['digsig', 'issuer'], digsig_prog_name: ['digsig', 'prog_name'], digsig_publisher: ['digsig', 'publisher'],
  digsig_subject: ['digsig', 'subject'], digsig_result: ['digsig', 'result'], digsig_sign_time: ['digsig', 'sign_time'],
  is_64bit: ['is_64bit'], is_executable_image: ['is_executable_image'],
};

export interface BinaryScope {
  /** Where-seen fields count only observations on sensors of these groups (all when absent). */
  readonly observedInGroups?: readonly number[] | undefined;
}

export class PostgresBinaryConditions extends PostgresCompiler {
  constructor(private readonly alias: string, private readonly scope: BinaryScope) {
    super();
  }

  protected override dynamicField(predicate: FieldPredicate): Fragment {
    return binaryTagCondition(predicate, this.alias);
  }

  protected field(predicate: FieldPredicate): Fragment {
    const { field, match } = predicate;
    const b = this.alias;
    switch (field) {
      case 'md5':
      case 'sha256':
        return loweredColumn(`${b}.${field}`, match);
      case 'orig_mod_len':
        return rangeColumn(`${b}.size`, match);
      case 'copied_mod_len':
        return rangeColumn(`${b}.stored_size`, match);
      case 'server_added_timestamp':
        return rangeColumn(`${b}.first_seen_ms`, match);
      case 'host_count':
        return rangeColumn(`(SELECT count(DISTINCT o.sensor_id) FROM binary_observations o WHERE o.md5 = ${b}.md5${this.scoped()})`, match);
      case 'observed_filename':
        return this.observed(observedPath(match));
      case 'hostname':
        return this.observed(keywordCondition('se.computer_name', match));
      case 'os_type':
        return this.observed(keywordCondition('se.os_type', match));
      case 'group':
        return this.observed(sql`se.group_id IN (SELECT id FROM sensor_groups WHERE ${keywordCondition('name', match)})`);
      case 'tampered':
        return match.kind === 'bool' && !match.value ? PG_TRUE : PG_FALSE;
      default:
        return this.metadata(field, match);
    }
  }

  private metadata(field: string, match: Match): Fragment {
    const path = METADATA_PATH[field];
    if (!path) return PG_FALSE;
    const keys = path.map((key) => `'${key}'`).join(', ');
    const json = raw(`jsonb_extract_path(${this.alias}.metadata::jsonb, ${keys})`);
    const text = `jsonb_extract_path_text(${this.alias}.metadata::jsonb, ${keys})`;
    if (match.kind === 'exists') return field === 'digsig_result' ? PG_TRUE : sql`${json} IS NOT NULL`;
    switch (field) {
      case 'digsig_result':
        return match.kind === 'exact' ? sql`lower(coalesce(${raw(text)}, '')) = ${match.value}` : keywordCondition(`coalesce(${text}, '')`, match);
      case 'digsig_sign_time':
        return sql`(${json} IS NOT NULL AND ${rangeColumn(`(${text})::numeric`, match)})`;
      case 'is_64bit':
      case 'is_executable_image':
        return match.kind === 'bool' ? sql`coalesce(${json} = 'true'::jsonb, FALSE) = ${raw(match.value ? 'TRUE' : 'FALSE')}` : PG_FALSE;
      default:
        return match.kind === 'tokens' ? textTokensCondition(text, match.tokens, match.wildcard) : PG_FALSE;
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
}

function observedPath(match: Match): Fragment {
  switch (match.kind) {
    case 'exists':
      return PG_TRUE;
    case 'subpath':
      return subPath('o.observed_filename', match.value);
    case 'subpath_wildcard':
      return subPathPattern('o.observed_filename', match.pattern);
    default:
      return PG_FALSE;
  }
}
