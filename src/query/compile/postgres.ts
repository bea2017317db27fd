/**
 * Predicates → SQL for the PostgreSQL store (schema version 2, docs/adr/0019-postgres-event-store.md).
 * The same documents and fields as the SQLite compiler (sqlite.ts documents where each field
 * lives); what differs is the event side:
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
import type { FieldPredicate, Match, Predicate } from '../analysis.js';
import { isExtensionToken } from '../values/cmdline.js';
import { joinConditions, raw, sql, type Fragment, type SqlParam } from './fragment.js';
import { PostgresBinaryConditions, type BinaryScope } from './postgres-binary.js';
import {
  keywordCondition, likeLiteral, likePattern, loweredColumn, PG_FALSE, PG_TRUE, PostgresCompiler, rangeColumn, regexBody,
  subPath, subPathPattern,
} from './postgres-shared.js';
import { processTagCondition } from './postgres-tags.js';
import { termValue, type TermLookup } from './postgres-terms.js';

export interface CompiledCondition {
  readonly sql: string;
  readonly params: readonly SqlParam[];
  /** Whether the condition reads `s` (so per-process shortcuts do not apply). */
  readonly readsSegments: boolean;
  /** Set when the whole condition is "the segments with one of these terms": the term array, so matches can be counted from segment_terms alone. */
  readonly postingTerms?: { readonly sql: string; readonly params: readonly SqlParam[] };
}

export interface ProcessCompileOptions {
  /** Look each segment's own term rows up (few segments) rather than search the index (a search). */
  readonly probe?: boolean;
}

export function compilePostgresProcessCondition(predicate: Predicate, options: ProcessCompileOptions = {}): CompiledCondition {
  const compiler = new ProcessCompiler(options.probe === true);
  const fragment = compiler.condition(predicate);
  const compiled = { sql: fragment.text, params: fragment.params, readsSegments: compiler.readsSegments };
  const lookup = compiler.lastLookup;
  return lookup && lookup.fragment === fragment ? { ...compiled, postingTerms: { sql: lookup.terms.text, params: lookup.terms.params } } : compiled;
}

export function compilePostgresBinaryCondition(predicate: Predicate, scope: BinaryScope = {}): CompiledCondition {
  const fragment = new PostgresBinaryConditions('b', scope).condition(predicate);
  return { sql: fragment.text, params: fragment.params, readsSegments: false };
}

const PROCESS_COLUMNS: Record<string, string> = {
  process_name: 'p.process_name', parent_name: 'p.parent_name', process_md5: 'p.md5', parent_md5: 'p.parent_md5',
  process_sha256: 'p.sha256', process_pid: 'p.pid', parent_pid: 'p.parent_pid', sensor_id: 'p.sensor_id', start: 'p.start_ms',
  last_update: 's.last_update_ms', last_server_update: 's.last_server_update_ms',
  childproc_count: 's.childproc_count', crossproc_count: 's.crossproc_count', filemod_count: 's.filemod_count',
  modload_count: 's.modload_count', netconn_count: 's.netconn_count', regmod_count: 's.regmod_count',
};

/** Event hash fields whose sha256 form is matched through the binaries table. */
const SHA256_THROUGH_MD5: Record<string, string> = {
  childproc_sha256: 'childproc_md5', crossproc_sha256: 'crossproc_md5', filewrite_sha256: 'filewrite_md5',
};
/** The term fields whose md5s the `md5` field covers beyond the process's and its parent's own. */
const EVENT_MD5_FIELDS = ['childproc_md5', 'filewrite_md5', 'modload_md5'];
const JOIN_TERM_FIELD = { child: 'childproc_md5', modload: 'modload_md5', filewrite: 'filewrite_md5' } as const;
const STORED_HOST_TYPE: Record<string, string> = { 'domain controller': 'domain_controller' };
/** The characters that separate command-line tokens (values/cmdline.ts), inside a regular expression's brackets. */
const CMDLINE_SEPARATOR_CHARS = `\\\\"'()[\\]{},=<>&|;\u201C\u201D\u2018\u2019[:space:]/:`;
const CMDLINE_SEPARATORS = `[${CMDLINE_SEPARATOR_CHARS}]+`;

class ProcessCompiler extends PostgresCompiler {
  readsSegments = false;
  lastLookup: { fragment: Fragment; terms: Fragment } | undefined;
  private readonly binary = new PostgresBinaryConditions('b', {});

  constructor(private readonly probe: boolean) {
    super();
  }

  protected override dynamicField(predicate: FieldPredicate): Fragment {
    return processTagCondition(predicate);
  }

  protected field(predicate: FieldPredicate): Fragment {
    const { field, match } = predicate;
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
        return loweredColumn(column!, match);
      case 'parent_sha256':
        return match.kind === 'exists' ? sql`p.parent_md5 <> ''` : sql`p.parent_md5 IN (${binaryMd5sWhere('sha256', match)})`;
      case 'path':
        return pathOfProcess(match);
      case 'cmdline':
        return this.cmdline(match);
      case 'username':
      case 'hostname':
        return distinctKeyword(field, match, this.probe);
      case 'group':
        return match.kind === 'exists' ? PG_TRUE : sql`p.group_id IN (SELECT id FROM sensor_groups WHERE ${keywordCondition('name', match)})`;
      case 'host_type':
      case 'os_type':
        return enumColumn(`p.${field}`, field === 'host_type' ? STORED_HOST_TYPE : {}, match);
      case 'md5':
        return this.hashUnion(match, 'md5');
      case 'sha256':
        return this.hashUnion(match, 'sha256');
      case 'tampered':
        return this.flag(match);
      case 'has_emet_config':
      case 'has_emet_event':
        return match.kind === 'bool' ? (match.value ? PG_FALSE : PG_TRUE) : PG_TRUE;
      default:
        return column ? rangeColumn(column, match) : PG_FALSE;
    }
  }

  /** The segments holding one of the terms. */
  private segmentsWithTerm(lookup: TermLookup): Fragment {
    this.readsSegments = true;
    const terms = lookup.array;
    const fragment = this.probe
      ? sql`EXISTS (SELECT 1 FROM segment_terms t WHERE t.sensor_id = s.sensor_id AND t.segment_row = s.id AND t.segment_id = s.segment_id AND t.terms && ${terms})`
      : sql`(s.sensor_id, s.id) IN (SELECT sensor_id, segment_row FROM segment_terms WHERE terms && ${terms})`;
    this.lastLookup = { fragment, terms };
    return fragment;
  }

  private eventField(field: string, match: Match): Fragment {
    if (field === 'blocked_status') return PG_FALSE;
    const through = SHA256_THROUGH_MD5[field];
    if (through) {
      return this.segmentsWithTerm(termValue([through], match.kind === 'exists' ? { kind: 'any' } : { kind: 'where', condition: sql`value IN (${binaryMd5sWhere('sha256', match)})` }));
    }
    return this.segmentsWithTerm(termValue([field], { kind: 'match', field, match }));
  }

  /** Words through the process's word array; a phrase of several is also checked on the command line. */
  private cmdline(match: Match): Fragment {
    if (match.kind === 'exists') return sql`p.cmdline <> ''`;
    if (match.kind !== 'tokens') return PG_FALSE;
    const each = match.tokens.map((token) => sql`p.cmdline_words && ${tokenWords(token, match.wildcard)}`);
    if (match.tokens.length > 1) {
      const word = (t: string) => (match.wildcard ? regexBody(t, `[^${CMDLINE_SEPARATOR_CHARS}]`) : regexBody(t));
      const phrase = `(^|${CMDLINE_SEPARATORS})${match.tokens.map(word).join(CMDLINE_SEPARATORS)}(${CMDLINE_SEPARATORS}|$)`;
      each.push(sql`lower(normalize(p.cmdline, NFC)) ~ ${phrase}`);
    }
    return each.length === 1 ? each[0]! : sql`(${joinConditions(each, 'AND')})`;
  }

  /** md5 / sha256: the process's, its parent's, its children's, its modules' and its written files'. */
  private hashUnion(match: Match, hash: 'md5' | 'sha256'): Fragment {
    if (match.kind === 'exists') return sql`p.md5 <> ''`;
    if (hash === 'md5') {
      const events = this.segmentsWithTerm(termValue(EVENT_MD5_FIELDS, { kind: 'match', field: 'md5', match }));
      return sql`(${loweredColumn('p.md5', match)} OR ${loweredColumn('p.parent_md5', match)} OR ${events})`;
    }
    const known = binaryMd5sWhere('sha256', match);
    const events = this.segmentsWithTerm(termValue(EVENT_MD5_FIELDS, { kind: 'where', condition: sql`value IN (${known})` }));
    return sql`(${loweredColumn('p.sha256', match)} OR p.parent_md5 IN (${known}) OR ${events})`;
  }

  private flag(match: Match): Fragment {
    if (match.kind !== 'bool') return PG_TRUE;
    const flagged = this.segmentsWithTerm(termValue(['tampered'], { kind: 'any' }));
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
        return this.segmentsWithTerm(termValue([field], { kind: 'where', condition: sql`value IN (${binaries})` }));
      }
    }
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

/**
 * A mixed-case column matched Unicode-insensitively on its distinct values, read through its
 * index by a skip scan; a user name is then a set of process ids, read from that index too.
 */
function distinctKeyword(name: 'username' | 'hostname', match: Match, probe: boolean): Fragment {
  const column = `p.${name}`;
  if (match.kind === 'exists') return sql`${raw(column)} <> ''`;
  const distinct = `WITH RECURSIVE d(v) AS (SELECT min(${name}) FROM processes UNION ALL `
    + `SELECT (SELECT min(${name}) FROM processes WHERE ${name} > d.v) FROM d WHERE d.v IS NOT NULL)`;
  const values = sql`${raw(distinct)} SELECT v FROM d WHERE v IS NOT NULL AND ${keywordCondition('v', match)}`;
  return name === 'username' && !probe ? sql`p.id IN (SELECT id FROM processes WHERE ${raw(name)} IN (${values}))` : sql`${raw(column)} IN (${values})`;
}

/** Enum columns store the sensor's spelling (`domain_controller`); the query has the canonical one. */
function enumColumn(column: string, stored: Record<string, string>, match: Match): Fragment {
  const c = raw(column);
  switch (match.kind) {
    case 'exists':
      return sql`${c} <> ''`;
    case 'exact':
      return sql`${c} = ${stored[match.value] ?? match.value}`;
    case 'prefix':
    case 'wildcard': {
      const pattern = match.kind === 'prefix' ? `${match.value}*` : match.pattern;
      return keywordCondition(`replace(${column}, '_', ' ')`, { kind: 'wildcard', pattern });
    }
    default:
      return PG_FALSE;
  }
}

/** The process's path: through its name (the path's last segment, indexed) when the query pins it. */
function pathOfProcess(match: Match): Fragment {
  if (match.kind === 'exists') return sql`p.path <> ''`;
  if (match.kind === 'subpath') {
    const name = match.value.slice(match.value.lastIndexOf('\\') + 1);
    return name === match.value ? sql`p.process_name = ${name}` : sql`(p.process_name = ${name} AND ${subPath('p.path', match.value)})`;
  }
  if (match.kind !== 'subpath_wildcard') return PG_FALSE;
  const check = subPathPattern('p.path', match.pattern);
  const last = match.pattern.slice(match.pattern.lastIndexOf('\\') + 1);
  return last !== match.pattern && !/[*?]/u.test(last) ? sql`(p.process_name = ${last} AND ${check})` : check;
}

/** md5s of binaries whose `column` (md5 or sha256) matches. */
function binaryMd5sWhere(column: 'md5' | 'sha256', match: Match): Fragment {
  return sql`SELECT md5 FROM binaries WHERE ${loweredColumn(column, match)}`;
}
