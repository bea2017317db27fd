/**
 * Predicates → SQL for process search, shared by the dialects. A process search's documents are
 * segments: the compiled condition reads `s` (segments) and `p` (its row in processes). Where
 * each field lives (storage brief):
 *
 * - process fields are columns of `p` (lower-cased at ingest: process_name, parent_name, path, md5,
 *   parent_md5); mixed-case ones (hostname, username) are matched on their distinct values, read
 *   through their index, with the dialect's Unicode-aware keyword rule;
 * - per-segment fields (last_update, counts) are columns of `s`;
 * - event fields, and the command line's words, are terms stored in the query's normal form
 *   (src/ingest/terms.ts); how a segment's terms and a process's words are looked up is the
 *   dialect's (sqlite.ts, postgres.ts), the hooks of `ProcessConditionCompiler`;
 * - binary fields are read from `binaries` (metadata JSON) through the md5 that joins them: the
 *   process's own, its parent's, or those its events name (`_child`, `_modload`, `_filewrite`);
 * - sha256 of children, modules and written files is matched through the binaries the server
 *   knows (sha256 → md5), since the terms keep only md5s of those;
 * - watchlist and feed tags (`watchlist_<id>`, `alliance_*_<feed>`) are read from the detection
 *   hit tables (shared-tags.ts).
 *
 * Fields Vigil records no data for (process_id / parent_id as 64-bit numbers, blocked_status,
 * EMET) match nothing, and their negation everything.
 *
 * Two shapes of the same condition: a search over all data collects each event field's segments
 * from the index, while the detection matcher, which checks only the few segments written since
 * its last run, asks for `probe`: each of those segments' own terms are looked up instead, so its
 * cost follows the new data rather than everything stored.
 */
import type { FieldPredicate, Match, Predicate } from '../analysis.js';
import { joinConditions, raw, sql, type Fragment, type SqlParam } from './fragment.js';
import { ConditionCompiler, loweredColumnIn, rangeColumnIn, type ConditionDialect } from './shared-conditions.js';
import { processTagConditionIn } from './shared-tags.js';

export interface CompiledCondition {
  readonly sql: string;
  readonly params: readonly SqlParam[];
  /** Whether the condition reads `s` (so per-process shortcuts do not apply). */
  readonly readsSegments: boolean;
  /**
   * Set when the whole condition is "the segments with one of these terms" (one event field): the
   * terms' SQL, so matches can be counted from the term index alone.
   */
  readonly postingTerms?: { readonly sql: string; readonly params: readonly SqlParam[] };
}

export interface ProcessCompileOptions {
  /** Look each segment's own terms up (few segments) rather than search the index (a search). */
  readonly probe?: boolean;
}

/** Which values of one or more term fields a condition stands for. */
export type TermSpec =
  | { readonly kind: 'any' }
  | { readonly kind: 'where'; readonly condition: Fragment }
  | { readonly kind: 'match'; readonly field: string; readonly match: Match };

/** Event hash fields whose sha256 form is matched through the binaries table. */
export const SHA256_THROUGH_MD5: Record<string, string> = {
  childproc_sha256: 'childproc_md5', crossproc_sha256: 'crossproc_md5', filewrite_sha256: 'filewrite_md5',
};

/** The term fields whose md5s the `md5` field covers beyond the process's and its parent's own. */
export const EVENT_MD5_FIELDS = ['childproc_md5', 'filewrite_md5', 'modload_md5'];

const PROCESS_COLUMNS: Record<string, string> = {
  process_name: 'p.process_name', parent_name: 'p.parent_name', process_md5: 'p.md5', parent_md5: 'p.parent_md5',
  process_sha256: 'p.sha256', process_pid: 'p.pid', parent_pid: 'p.parent_pid', sensor_id: 'p.sensor_id', start: 'p.start_ms',
  last_update: 's.last_update_ms', last_server_update: 's.last_server_update_ms',
  childproc_count: 's.childproc_count', crossproc_count: 's.crossproc_count', filemod_count: 's.filemod_count',
  modload_count: 's.modload_count', netconn_count: 's.netconn_count', regmod_count: 's.regmod_count',
};

/** Which term field holds the md5s of the binaries a join reads. */
const JOIN_TERM_FIELD = { child: 'childproc_md5', modload: 'modload_md5', filewrite: 'filewrite_md5' } as const;

const STORED_HOST_TYPE: Record<string, string> = { 'domain controller': 'domain_controller' };

/** Compiles one predicate, saying when it is nothing but one postings lookup. */
export function compileProcessWith(compiler: ProcessConditionCompiler, predicate: Predicate): CompiledCondition {
  const fragment = compiler.condition(predicate);
  const compiled = { sql: fragment.text, params: fragment.params, readsSegments: compiler.readsSegments };
  const lookup = compiler.lastLookup;
  return lookup && lookup.fragment === fragment ? { ...compiled, postingTerms: { sql: lookup.terms.text, params: lookup.terms.params } } : compiled;
}

export abstract class ProcessConditionCompiler extends ConditionCompiler {
  readsSegments = false;
  /** The last postings lookup compiled, so a condition that is nothing else can say so. */
  lastLookup: { fragment: Fragment; terms: Fragment } | undefined;

  /** `binary` compiles binary fields on the row `b`, for the joins. */
  constructor(dialect: ConditionDialect, private readonly binary: ConditionCompiler, protected readonly probe: boolean) {
    super(dialect);
  }

  /** The terms of `fields` that `spec` stands for, as the segment lookup takes them. */
  protected abstract eventTerms(fields: readonly string[], spec: TermSpec): Fragment;
  /** The segments `s` holding one of the terms. */
  protected abstract segmentsHolding(terms: Fragment): Fragment;
  /** The processes `p` whose command line has a word the token stands for. */
  protected abstract cmdlineWord(token: string, wildcard: boolean): Fragment;
  /** The command line has the tokens at consecutive positions (a phrase). */
  protected abstract cmdlinePhrase(tokens: readonly string[], wildcard: boolean): Fragment;

  protected override dynamicField(predicate: FieldPredicate): Fragment {
    return processTagConditionIn(this.dialect, predicate);
  }

  protected field(predicate: FieldPredicate): Fragment {
    const { field, match } = predicate;
    const { dialect } = this;
    if (predicate.source === 'binary') return this.binaryJoin(predicate);
    if (predicate.source === 'event') return this.eventField(field, match);
    const column = PROCESS_COLUMNS[field];
    if (column?.startsWith('s.')) this.readsSegments = true;
    switch (field) {
      case 'process_name':
      case 'parent_name':
      case 'process_md5':
      case 'parent_md5':
      case 'process_sha256':
        return loweredColumnIn(dialect, column!, match);
      case 'parent_sha256':
        return match.kind === 'exists' ? sql`p.parent_md5 <> ''` : sql`p.parent_md5 IN (${binaryMd5sWhere(dialect, 'sha256', match)})`;
      case 'path':
        return pathOfProcess(dialect, match);
      case 'cmdline':
        return this.cmdline(match);
      case 'username':
      case 'hostname':
        return distinctKeyword(dialect, field, match, this.probe);
      case 'group':
        return match.kind === 'exists' ? dialect.true : sql`p.group_id IN (SELECT id FROM sensor_groups WHERE ${dialect.keyword('name', match)})`;
      case 'host_type':
      case 'os_type':
        return enumColumn(dialect, `p.${field}`, field === 'host_type' ? STORED_HOST_TYPE : {}, match);
      case 'md5':
        return this.hashUnion(match, 'md5');
      case 'sha256':
        return this.hashUnion(match, 'sha256');
      case 'tampered':
        return this.flag(match);
      case 'has_emet_config':
      case 'has_emet_event':
        return match.kind === 'bool' ? (match.value ? dialect.false : dialect.true) : dialect.true;
      default:
        return column ? rangeColumnIn(dialect, column, match) : dialect.false;
    }
  }

  private segmentsWithTerm(fields: readonly string[], spec: TermSpec): Fragment {
    this.readsSegments = true;
    const terms = this.eventTerms(fields, spec);
    const fragment = this.segmentsHolding(terms);
    this.lastLookup = { fragment, terms };
    return fragment;
  }

  private eventField(field: string, match: Match): Fragment {
    if (field === 'blocked_status') return this.dialect.false;
    const through = SHA256_THROUGH_MD5[field];
    if (through) {
      if (match.kind === 'exists') return this.segmentsWithTerm([through], { kind: 'any' });
      return this.segmentsWithTerm([through], { kind: 'where', condition: sql`value IN (${binaryMd5sWhere(this.dialect, 'sha256', match)})` });
    }
    return this.segmentsWithTerm([field], { kind: 'match', field, match });
  }

  /** Each token is one of the process's words; a phrase of several is also checked on the command line. */
  private cmdline(match: Match): Fragment {
    if (match.kind === 'exists') return sql`p.cmdline <> ''`;
    if (match.kind !== 'tokens') return this.dialect.false;
    const each = match.tokens.map((token) => this.cmdlineWord(token, match.wildcard));
    if (match.tokens.length > 1) each.push(this.cmdlinePhrase(match.tokens, match.wildcard));
    return each.length === 1 ? each[0]! : sql`(${joinConditions(each, 'AND')})`;
  }

  /** md5 / sha256: the process's, its parent's, its children's, its modules' and its written files'. */
  private hashUnion(match: Match, hash: 'md5' | 'sha256'): Fragment {
    if (match.kind === 'exists') return sql`p.md5 <> ''`;
    const lowered = (column: string) => loweredColumnIn(this.dialect, column, match);
    if (hash === 'md5') {
      const events = this.segmentsWithTerm(EVENT_MD5_FIELDS, { kind: 'match', field: 'md5', match });
      return sql`(${lowered('p.md5')} OR ${lowered('p.parent_md5')} OR ${events})`;
    }
    const known = binaryMd5sWhere(this.dialect, 'sha256', match);
    const events = this.segmentsWithTerm(EVENT_MD5_FIELDS, { kind: 'where', condition: sql`value IN (${known})` });
    return sql`(${lowered('p.sha256')} OR p.parent_md5 IN (${known}) OR ${events})`;
  }

  private flag(match: Match): Fragment {
    if (match.kind !== 'bool') return this.dialect.true;
    const flagged = this.segmentsWithTerm(['tampered'], { kind: 'any' });
    return match.value ? flagged : sql`NOT (${flagged})`;
  }

  private binaryJoin(predicate: FieldPredicate): Fragment {
    const binaries = sql`SELECT b.md5 FROM binaries b WHERE ${this.binary.condition({ ...predicate, source: 'binary' })}`;
    switch (predicate.join ?? 'process') {
      case 'process':
        return sql`p.md5 IN (${binaries})`;
      case 'parent':
        return sql`p.parent_md5 IN (${binaries})`;
      default: {
        const field = JOIN_TERM_FIELD[predicate.join as keyof typeof JOIN_TERM_FIELD];
        return this.segmentsWithTerm([field], { kind: 'where', condition: sql`value IN (${binaries})` });
      }
    }
  }
}

/**
 * A mixed-case column matched Unicode-insensitively on its distinct values, read through its index
 * by a skip scan. On SQLite a user name is then a set of process ids, also read from that index,
 * so that checking it beside another condition reads no process row (hostnames stay a column
 * condition: the per-host counts read them); PostgreSQL combines the column's index with others.
 */
function distinctKeyword(dialect: ConditionDialect, name: 'username' | 'hostname', match: Match, probe: boolean): Fragment {
  const column = `p.${name}`;
  if (match.kind === 'exists') return sql`${raw(column)} <> ''`;
  const distinct = `WITH RECURSIVE d(v) AS (SELECT min(${name}) FROM processes UNION ALL `
    + `SELECT (SELECT min(${name}) FROM processes WHERE ${name} > d.v) FROM d WHERE d.v IS NOT NULL)`;
  const values = sql`${raw(distinct)} SELECT v FROM d WHERE v IS NOT NULL AND ${dialect.keyword('v', match)}`;
  return name === 'username' && dialect.userNamesAsProcessIds && !probe ? sql`p.id IN (SELECT id FROM processes WHERE ${raw(name)} IN (${values}))` : sql`${raw(column)} IN (${values})`;
}

/** Enum columns store the sensor's spelling (`domain_controller`); the query has the canonical one. */
function enumColumn(dialect: ConditionDialect, column: string, stored: Record<string, string>, match: Match): Fragment {
  const c = raw(column);
  switch (match.kind) {
    case 'exists':
      return sql`${c} <> ''`;
    case 'exact':
      return sql`${c} = ${stored[match.value] ?? match.value}`;
    case 'prefix':
    case 'wildcard': {
      const pattern = match.kind === 'prefix' ? `${match.value}*` : match.pattern;
      return dialect.keyword(`replace(${column}, '_', ' ')`, { kind: 'wildcard', pattern });
    }
    default:
      return dialect.false;
  }
}

/** The process's path: through its name (the path's last segment, indexed) when the query pins it. */
function pathOfProcess(dialect: ConditionDialect, match: Match): Fragment {
  if (match.kind === 'exists') return sql`p.path <> ''`;
  if (match.kind === 'subpath') {
    const name = match.value.slice(match.value.lastIndexOf('\\') + 1);
    return name === match.value ? sql`p.process_name = ${name}` : sql`(p.process_name = ${name} AND ${dialect.subPath('p.path', match.value)})`;
  }
  if (match.kind !== 'subpath_wildcard') return dialect.false;
  const check = dialect.subPathPattern('p.path', match.pattern);
  // A pattern ending in `\name` with no wildcard in `name` can only match paths whose last segment is name.
  const last = match.pattern.slice(match.pattern.lastIndexOf('\\') + 1);
  return last !== match.pattern && !/[*?]/u.test(last) ? sql`(p.process_name = ${last} AND ${check})` : check;
}

/** md5s of binaries whose `column` (md5 or sha256) matches. */
function binaryMd5sWhere(dialect: ConditionDialect, column: 'md5' | 'sha256', match: Match): Fragment {
  return sql`SELECT md5 FROM binaries WHERE ${loweredColumnIn(dialect, column, match)}`;
}
