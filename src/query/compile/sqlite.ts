/**
 * Predicates → SQL for the embedded (SQLite) store. A process search's documents are segments:
 * the compiled condition reads `s` (segments) and `p` (its row in processes); a binary search's
 * documents are rows `b` of binaries. Where each field lives (storage brief):
 *
 * - process fields are columns of `p` (lower-cased at ingest: process_name, parent_name, path, md5,
 *   parent_md5); mixed-case ones (hostname, username) are matched on their distinct values, read
 *   through their index, with the Unicode-aware functions of sqlite-functions.ts;
 * - per-segment fields (last_update, counts) are columns of `s`;
 * - event fields, and the command line's tokens, are terms of the dictionary `event_terms` whose
 *   postings name segments (src/ingest/terms.ts stores them in the query's normal form, so exact
 *   and prefix matches use the dictionary's index and patterns scan one field's distinct values;
 *   command-line words are posted per process, in process_postings);
 * - binary fields are read from `binaries` (metadata JSON) through the md5 that joins them: the
 *   process's own, its parent's, or those its events name (`_child`, `_modload`, `_filewrite`);
 * - sha256 of children, modules and written files is matched through the binaries the server
 *   knows (sha256 → md5), since the term index keeps only md5s of those.
 *
 * - watchlist and feed tags (`watchlist_<id>`, `alliance_*_<feed>`) are read from the detection
 *   hit tables (sqlite-tags.ts).
 *
 * Fields Vigil records no data for (process_id / parent_id as 64-bit numbers, blocked_status,
 * EMET) match nothing, and their negation everything.
 *
 * Two shapes of the same condition: a search over all data collects each event field's segments
 * from the postings (`s.id IN (…)`), while the detection matcher, which checks only the few
 * segments written since its last run, asks for `probe`: each of those segments is looked up in
 * the postings instead, so its cost follows the new data rather than everything stored.
 */
import type { FieldPredicate, Match, Predicate } from '../analysis.js';
import type { Fragment} from './fragment.js';
import { FALSE, globLiteral, globPattern, joinConditions, joinFragments, raw, sql, TRUE, type SqlParam } from './fragment.js';
import { BinaryConditions, type BinaryScope } from './sqlite-binary.js';
import { isExtensionToken } from '../values/cmdline.js';
import { bounded, Compiler, keywordFunction, loweredColumn, rangeColumn } from './sqlite-shared.js';
import { processTagCondition } from './sqlite-tags.js';

export interface CompiledCondition {
  readonly sql: string;
  readonly params: readonly SqlParam[];
  /** Whether the condition reads `s` (so per-process shortcuts do not apply). */
  readonly readsSegments: boolean;
  /**
   * Set when the whole condition is "the segments with a posting of one of these terms" (one
   * event field): the query selecting the term ids, so matches can be counted from the postings.
   */
  readonly postingTerms?: { readonly sql: string; readonly params: readonly SqlParam[] };
}

export interface ProcessCompileOptions {
  /** Look each segment up in the postings (few segments) rather than collect the postings (a search). */
  readonly probe?: boolean;
}

export function compileProcessCondition(predicate: Predicate, options: ProcessCompileOptions = {}): CompiledCondition {
  const compiler = new ProcessCompiler(options.probe === true);
  const fragment = compiler.condition(predicate);
  const compiled = finish(fragment, compiler.readsSegments);
  const lookup = compiler.lastLookup;
  return lookup && lookup.fragment === fragment ? { ...compiled, postingTerms: { sql: lookup.terms.text, params: lookup.terms.params } } : compiled;
}

export function compileBinaryCondition(predicate: Predicate, scope: BinaryScope = {}): CompiledCondition {
  return finish(new BinaryConditions('b', scope).condition(predicate), false);
}

function finish(fragment: Fragment, readsSegments: boolean): CompiledCondition {
  return { sql: fragment.text, params: fragment.params, readsSegments };
}

const PROCESS_COLUMNS: Record<string, string> = {
  process_name: 'p.process_name', parent_name: 'p.parent_name', process_md5: 'p.md5', parent_md5: 'p.parent_md5',
  process_sha256: 'p.sha256', process_pid: 'p.pid', parent_pid: 'p.parent_pid', sensor_id: 'p.sensor_id', start: 'p.start_ms',
  last_update: 's.last_update_ms', last_server_update: 's.last_server_update_ms',
  childproc_count: 's.childproc_count', crossproc_count: 's.crossproc_count', filemod_count: 's.filemod_count',
  modload_count: 's.modload_count', netconn_count: 's.netconn_count', regmod_count: 's.regmod_count',
};

/** Event hash fields whose sha256 form is matched through the binaries table. */
export const SHA256_THROUGH_MD5: Record<string, string> = {
  childproc_sha256: 'childproc_md5', crossproc_sha256: 'crossproc_md5', filewrite_sha256: 'filewrite_md5',
};

/** The term fields whose md5s the `md5` field covers beyond the process's and its parent's own. */
export const EVENT_MD5_FIELDS = ['childproc_md5', 'filewrite_md5', 'modload_md5'];

/** Which term field holds the md5s of the binaries a join reads. */
const JOIN_TERM_FIELD = { child: 'childproc_md5', modload: 'modload_md5', filewrite: 'filewrite_md5' } as const;

const STORED_HOST_TYPE: Record<string, string> = { 'domain controller': 'domain_controller' };

class ProcessCompiler extends Compiler {
  readsSegments = false;
  private readonly binary = new BinaryConditions('b', {});

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
        return distinctKeyword(`p.${field}`, field, match, this.probe);
      case 'group':
        return match.kind === 'exists' ? TRUE : sql`p.group_id IN (SELECT id FROM sensor_groups WHERE ${keywordFunction('name', match)})`;
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
        return match.kind === 'bool' ? (match.value ? FALSE : TRUE) : TRUE;
      default:
        return column ? rangeColumn(column, match) : FALSE;
    }
  }

  /** The last postings lookup compiled, so a condition that is nothing else can say so. */
  lastLookup: { fragment: Fragment; terms: Fragment } | undefined;

  private segmentsWithTerm(fields: readonly string[], match: Fragment | undefined): Fragment {
    this.readsSegments = true;
    const terms = termIds(fields, match);
    const fragment = this.probe
      ? sql`EXISTS (SELECT 1 FROM event_postings WHERE term_id IN (${terms}) AND segment_row = s.id)`
      : sql`s.id IN (SELECT segment_row FROM event_postings WHERE term_id IN (${terms}))`;
    this.lastLookup = { fragment, terms };
    return fragment;
  }

  private eventField(field: string, match: Match): Fragment {
    if (field === 'blocked_status') return FALSE;
    const through = SHA256_THROUGH_MD5[field];
    if (through) {
      return this.segmentsWithTerm([through], match.kind === 'exists' ? undefined : sql`value IN (${binaryMd5sWhere('sha256', match)})`);
    }
    return this.segmentsWithTerm([field], termValue(field, match));
  }

  /**
   * Tokens are found through the dictionary and its postings per process (the words come from the
   * process's start); a phrase of several is checked on the command line itself.
   */
  private cmdline(match: Match): Fragment {
    if (match.kind === 'exists') return sql`p.cmdline <> ''`;
    if (match.kind !== 'tokens') return FALSE;
    const each = match.tokens.map((token) => {
      const terms = termIds(['cmdline'], tokenValue(token, match.wildcard));
      return this.probe
        ? sql`EXISTS (SELECT 1 FROM process_postings WHERE term_id IN (${terms}) AND process_row = p.id)`
        : sql`p.id IN (SELECT process_row FROM process_postings WHERE term_id IN (${terms}))`;
    });
    if (match.tokens.length > 1) each.push(sql`vigil_tokens(p.cmdline, 'cmdline', ${JSON.stringify(match.tokens)}, ${match.wildcard ? 1 : 0})`);
    return each.length === 1 ? each[0]! : sql`(${joinConditions(each, 'AND')})`;
  }

  /** md5 / sha256: the process's, its parent's, its children's, its modules' and its written files'. */
  private hashUnion(match: Match, hash: 'md5' | 'sha256'): Fragment {
    if (match.kind === 'exists') return sql`p.md5 <> ''`;
    if (hash === 'md5') {
      return sql`(${loweredColumn('p.md5', match)} OR ${loweredColumn('p.parent_md5', match)} OR ${this.segmentsWithTerm(EVENT_MD5_FIELDS, termValue('md5', match))})`;
    }
    const known = binaryMd5sWhere('sha256', match);
    return sql`(${loweredColumn('p.sha256', match)} OR p.parent_md5 IN (${known}) OR ${this.segmentsWithTerm(EVENT_MD5_FIELDS, sql`value IN (${known})`)})`;
  }

  private flag(match: Match): Fragment {
    if (match.kind !== 'bool') return TRUE;
    const flagged = this.segmentsWithTerm(['tampered'], undefined);
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
        return this.segmentsWithTerm([field], sql`value IN (${binaries})`);
      }
    }
  }
}

/** The dictionary ids of a term field's values (every value when `match` is undefined). */
function termIds(fields: readonly string[], match: Fragment | undefined): Fragment {
  const fieldList = fields.length === 1 ? sql`field = ${fields[0]!}` : sql`field IN (${joinFragments(fields.map((f) => sql`${f}`), ', ')})`;
  return match ? sql`SELECT id FROM event_terms WHERE ${fieldList} AND ${match}` : sql`SELECT id FROM event_terms WHERE ${fieldList}`;
}

/** A condition on a dictionary `value` (stored in the query's normal form), or undefined for "any value". */
export function termValue(field: string, match: Match): Fragment | undefined {
  switch (match.kind) {
    case 'exists':
      return undefined;
    case 'exact':
      return sql`value = ${match.value}`;
    case 'prefix':
      return sql`value GLOB ${`${globLiteral(match.value)}*`}`;
    case 'wildcard':
      return sql`value GLOB ${globPattern(match.pattern)}`;
    case 'subpath':
      return sql`(value = ${match.value} OR value GLOB ${`*\\${globLiteral(match.value)}`})`;
    case 'subpath_wildcard':
      return sql`(value GLOB ${globPattern(match.pattern)} OR value GLOB ${`*\\${globPattern(match.pattern)}`})`;
    case 'domain':
      return domainValue(match);
    case 'ipv4_range':
      return sql`value BETWEEN ${hex(match.first, 8)} AND ${hex(match.last, 8)}`;
    case 'ipv6_range':
      return sql`value BETWEEN ${hex(match.first, 32)} AND ${hex(match.last, 32)}`;
    case 'number_range':
      // Ports are stored as plain decimals: one port is one dictionary value.
      if (field !== 'ipport') return FALSE;
      return match.min !== null && match.min === match.max ? sql`value = ${String(match.min)}` : bounded(raw('CAST(value AS INTEGER)'), match.min, match.max);
    default:
      return FALSE;
  }
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

const hex = (value: number | bigint, digits: number) => value.toString(16).padStart(digits, '0');

/** Domain label anchors (values/domain.ts) as GLOBs over whole stored domains. */
function domainValue(match: Extract<Match, { kind: 'domain' }>): Fragment {
  const labels = globLiteral(match.labels.join('.'));
  const sides = (rule: string) => (rule === 'any' ? [false, true] : [rule === 'some']);
  const patterns: Fragment[] = [];
  for (const before of sides(match.before)) {
    for (const after of sides(match.after)) {
      const pattern = `${before ? '*.' : ''}${labels}${after ? '.*' : ''}`;
      patterns.push(before || after ? sql`value GLOB ${pattern}` : sql`value = ${match.labels.join('.')}`);
    }
  }
  return patterns.length === 1 ? patterns[0]! : sql`(${joinFragments(patterns, ' OR ')})`;
}

/**
 * A mixed-case column matched Unicode-insensitively on its distinct values, read through its index.
 * A user name is then a set of process ids, also read from that index, so that checking it beside
 * another condition reads no process row (hostnames stay a column condition: the per-host counts
 * read them).
 */
function distinctKeyword(column: string, name: string, match: Match, probe: boolean): Fragment {
  if (match.kind === 'exists') return sql`${raw(column)} <> ''`;
  const distinct = `WITH RECURSIVE d(v) AS (SELECT min(${name}) FROM processes UNION ALL `
    + `SELECT (SELECT min(${name}) FROM processes WHERE ${name} > d.v) FROM d WHERE d.v IS NOT NULL)`;
  const values = sql`${raw(distinct)} SELECT v FROM d WHERE v IS NOT NULL AND ${keywordFunction('v', match)}`;
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
      return sql`vigil_glob(replace(${c}, '_', ' '), ${pattern})`;
    }
    default:
      return FALSE;
  }
}

/** The process's path: through its name (the path's last segment, indexed) when the query pins it. */
function pathOfProcess(match: Match): Fragment {
  if (match.kind === 'exists') return sql`p.path <> ''`;
  if (match.kind === 'subpath') {
    const name = match.value.slice(match.value.lastIndexOf('\\') + 1);
    return name === match.value ? sql`p.process_name = ${name}` : sql`(p.process_name = ${name} AND vigil_subpath(p.path, ${match.value}, 0))`;
  }
  if (match.kind !== 'subpath_wildcard') return FALSE;
  const check = sql`vigil_subpath_glob(p.path, ${match.pattern}, 0)`;
  // A pattern ending in `\name` with no wildcard in `name` can only match paths whose last segment is name.
  const last = match.pattern.slice(match.pattern.lastIndexOf('\\') + 1);
  return last !== match.pattern && !/[*?]/u.test(last) ? sql`(p.process_name = ${last} AND ${check})` : check;
}

/** md5s of binaries whose `column` (md5 or sha256) matches. */
function binaryMd5sWhere(column: 'md5' | 'sha256', match: Match): Fragment {
  return sql`SELECT md5 FROM binaries WHERE ${loweredColumn(column, match)}`;
}
