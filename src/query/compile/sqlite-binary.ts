/**
 * Binary fields as conditions on a row of `binaries` (alias given): hashes and sizes are columns,
 * version information and signatures are read from the metadata JSON the sensor sent, and where a
 * binary was seen (observed_filename, hostname, group, os_type, host_count) from its observations.
 * Used by binary search and, through a join on md5, by process search.
 */
import type { FieldPredicate, Match } from '../analysis.js';
import { METADATA_PATH } from '../binary-metadata.js';
import type { Fragment} from './fragment.js';
import { FALSE, raw, sql, TRUE } from './fragment.js';
import { Compiler, keywordFunction, loweredColumn, rangeColumn } from './sqlite-shared.js';
import { binaryTagCondition } from './sqlite-tags.js';

export interface BinaryScope {
  /** Where-seen fields count only observations on sensors of these groups (all when absent). */
  readonly observedInGroups?: readonly number[] | undefined;
}

export class BinaryConditions extends Compiler {
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
        return this.observed(keywordFunction('se.computer_name', match));
      case 'os_type':
        return this.observed(keywordFunction('se.os_type', match));
      case 'group':
        return this.observed(sql`se.group_id IN (SELECT id FROM sensor_groups WHERE ${keywordFunction('name', match)})`);
      case 'tampered':
        return match.kind === 'bool' && !match.value ? TRUE : FALSE;
      default:
        return this.metadata(field, match);
    }
  }

  private metadata(field: string, match: Match): Fragment {
    const path = METADATA_PATH[field];
    if (!path) return FALSE;
    const value = raw(`json_extract(${this.alias}.metadata, '${path}')`);
    if (match.kind === 'exists') return field === 'digsig_result' ? TRUE : sql`${value} IS NOT NULL`;
    switch (field) {
      case 'digsig_result':
        return match.kind === 'exact' ? sql`lower(coalesce(${value}, '')) = ${match.value}` : keywordFunction(`coalesce(${value.text}, '')`, match);
      case 'digsig_sign_time':
        return sql`(${value} IS NOT NULL AND ${rangeColumn(value.text, match)})`;
      case 'is_64bit':
      case 'is_executable_image':
        return match.kind === 'bool' ? sql`coalesce(${value}, 0) = ${match.value ? 1 : 0}` : FALSE;
      default:
        return match.kind === 'tokens'
          ? sql`vigil_tokens(${value}, 'text', ${JSON.stringify(match.tokens)}, ${match.wildcard ? 1 : 0})`
          : FALSE;
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
      return TRUE;
    case 'subpath':
      return sql`vigil_subpath(o.observed_filename, ${match.value}, 0)`;
    case 'subpath_wildcard':
      return sql`vigil_subpath_glob(o.observed_filename, ${match.pattern}, 0)`;
    default:
      return FALSE;
  }
}
