/**
 * The field catalog (reference §6): every field of process and binary search, its type, where a
 * process search finds it, and which fields a bare term searches. resolveField adds the dynamic
 * families (`watchlist_<id>`, `alliance_score_<feed>`, …), aliases and binary joins
 * (`digsig_result_parent`).
 *
 * Unknown fields are refused (decision 5 of §8): Carbon Black's Solr answered an undefined field
 * with a 400, and a typo such as `disig_issuer:` should say so rather than match nothing. The
 * error names the closest known field.
 */
import { closest, distance } from 'fastest-levenshtein';
import { isRecordIndex, recordFields, resolveRecordField, type RecordIndex } from './fields.records.js';
import {
  BLOCKED_STATUSES, CROSSPROC_TYPES, DIGSIG_RESULTS, HOST_TYPES, OS_TYPES, type EnumValues,
} from './values/enums.js';

export type FieldType =
  | 'keyword' | 'text' | 'md5' | 'sha256' | 'cmdline' | 'path' | 'domain' | 'ipaddr' | 'ipv6addr'
  | 'count' | 'integer' | 'long' | 'datetime' | 'bool' | 'enum';

/** Process and binary search; the record searches (alerts, threat reports) are in fields.records.ts. */
export type IndexName = 'process' | 'binary' | RecordIndex;

/** Where a process search finds a field: the process itself, its events, or its binary (a join). */
export type FieldSource = 'process' | 'event' | 'binary';

/** Which binary a binary field in a process search is read from (reference §6 "Binary joins"). */
export type BinaryJoin = 'process' | 'parent' | 'child' | 'modload' | 'filewrite';

export interface FieldDef {
  readonly name: string;
  readonly type: FieldType;
  /** Absent: not searchable in process search. */
  readonly process?: FieldSource;
  readonly binary: boolean;
  /** The indexes in which a bare term searches this field. */
  readonly defaultIn: readonly IndexName[];
  readonly values?: EnumValues;
  /** Registry paths fold controlset001/002… into currentcontrolset. */
  readonly registry?: boolean;
  /** Datetime fields: whose clock the stored time is on. */
  readonly clock?: 'endpoint' | 'server';
  /** Process search: the hash fields this one stands for all of (plus loaded modules' hashes). */
  readonly unionOf?: readonly string[];
}

type Defaults = '' | 'P' | 'B' | 'PB';

function field(name: string, type: FieldType, process: FieldSource | undefined, binary: boolean, defaults: Defaults,
  extra: Partial<FieldDef> = {}): FieldDef {
  const defaultIn: IndexName[] = [];
  if (defaults.includes('P')) defaultIn.push('process');
  if (defaults.includes('B')) defaultIn.push('binary');
  return { name, type, ...(process ? { process } : {}), binary, defaultIn, ...extra };
}

const binaryField = (name: string, type: FieldType, defaults: '' | 'B', extra: Partial<FieldDef> = {}) =>
  field(name, type, 'binary', true, defaults, extra);

export const FIELDS: readonly FieldDef[] = [
  // The process document.
  field('process_name', 'keyword', 'process', false, 'P'),
  field('process_md5', 'md5', 'process', false, 'P'),
  field('process_sha256', 'sha256', 'process', false, 'P'),
  field('process_id', 'long', 'process', false, ''),
  field('process_pid', 'integer', 'process', false, ''),
  field('parent_name', 'keyword', 'process', false, 'P'),
  field('parent_md5', 'md5', 'process', false, 'P'),
  field('parent_sha256', 'sha256', 'process', false, 'P'),
  field('parent_id', 'long', 'process', false, ''),
  field('parent_pid', 'integer', 'process', false, ''),
  field('path', 'path', 'process', false, 'P'),
  field('cmdline', 'cmdline', 'process', false, 'P'),
  field('username', 'keyword', 'process', false, 'P'),
  field('hostname', 'keyword', 'process', true, 'PB'),
  field('group', 'keyword', 'process', true, 'PB'),
  field('host_type', 'enum', 'process', false, 'P', { values: HOST_TYPES }),
  field('os_type', 'enum', 'process', true, '', { values: OS_TYPES }),
  field('sensor_id', 'long', 'process', false, ''),
  field('start', 'datetime', 'process', false, '', { clock: 'endpoint' }),
  field('last_update', 'datetime', 'process', false, '', { clock: 'endpoint' }),
  field('last_server_update', 'datetime', 'process', false, '', { clock: 'server' }),
  field('childproc_count', 'count', 'process', false, ''),
  field('crossproc_count', 'count', 'process', false, ''),
  field('filemod_count', 'count', 'process', false, ''),
  field('modload_count', 'count', 'process', false, ''),
  field('netconn_count', 'count', 'process', false, ''),
  field('regmod_count', 'count', 'process', false, ''),
  field('has_emet_config', 'bool', 'process', false, ''),
  field('has_emet_event', 'bool', 'process', false, ''),
  field('tampered', 'bool', 'process', true, ''),
  field('md5', 'md5', 'process', true, 'PB',
    { unionOf: ['process_md5', 'parent_md5', 'childproc_md5', 'filewrite_md5'] }),
  field('sha256', 'sha256', 'process', true, 'PB',
    { unionOf: ['process_sha256', 'parent_sha256', 'childproc_sha256', 'filewrite_sha256'] }),
  // What the process did (its events).
  field('filemod', 'path', 'event', false, 'P'),
  field('filewrite_md5', 'md5', 'event', false, 'P'),
  field('filewrite_sha256', 'sha256', 'event', false, 'P'),
  field('modload', 'path', 'event', false, 'P'),
  field('regmod', 'path', 'event', false, 'P', { registry: true }),
  field('domain', 'domain', 'event', false, 'P'),
  field('ipaddr', 'ipaddr', 'event', false, ''),
  field('ipv6addr', 'ipv6addr', 'event', false, ''),
  field('ipport', 'integer', 'event', false, ''),
  // Keyword, as the reference types them (§6): any value, though sensors send md5 fingerprints.
  field('ja3', 'keyword', 'event', false, ''),
  field('ja3s', 'keyword', 'event', false, ''),
  field('childproc_name', 'keyword', 'event', false, 'P'),
  field('childproc_md5', 'md5', 'event', false, 'P'),
  field('childproc_sha256', 'sha256', 'event', false, 'P'),
  field('crossproc_name', 'keyword', 'event', false, ''),
  field('crossproc_md5', 'md5', 'event', false, ''),
  field('crossproc_sha256', 'sha256', 'event', false, ''),
  field('crossproc_type', 'enum', 'event', false, 'P', { values: CROSSPROC_TYPES }),
  field('blocked_md5', 'md5', 'event', false, 'P'),
  field('blocked_status', 'enum', 'event', false, '', { values: BLOCKED_STATUSES }),
  // The binary (in a process search: the process's own binary unless a join suffix says otherwise).
  binaryField('comments', 'text', 'B'),
  binaryField('company_name', 'text', 'B'),
  binaryField('copied_mod_len', 'count', ''),
  binaryField('orig_mod_len', 'count', ''),
  binaryField('digsig_issuer', 'text', 'B'),
  binaryField('digsig_prog_name', 'text', 'B'),
  binaryField('digsig_publisher', 'text', 'B'),
  binaryField('digsig_subject', 'text', 'B'),
  binaryField('digsig_result', 'enum', 'B', { values: DIGSIG_RESULTS }),
  binaryField('digsig_sign_time', 'datetime', '', { clock: 'endpoint' }),
  binaryField('file_desc', 'text', 'B'),
  binaryField('file_version', 'text', 'B'),
  binaryField('internal_name', 'text', 'B'),
  binaryField('legal_copyright', 'text', 'B'),
  binaryField('legal_trademark', 'text', 'B'),
  binaryField('original_filename', 'text', 'B'),
  binaryField('private_build', 'text', 'B'),
  binaryField('special_build', 'text', 'B'),
  binaryField('product_desc', 'text', 'B'),
  binaryField('product_name', 'text', 'B'),
  binaryField('product_version', 'text', 'B'),
  binaryField('observed_filename', 'path', 'B'),
  binaryField('is_64bit', 'bool', ''),
  binaryField('is_executable_image', 'bool', ''),
  binaryField('host_count', 'integer', ''),
  binaryField('server_added_timestamp', 'datetime', '', { clock: 'server' }),
];

/** Dynamic fields: a family prefix and what follows it (a watchlist id, a feed's short name). */
const DYNAMIC: readonly { family: DynamicFamily; pattern: RegExp; def: Omit<FieldDef, 'name'> }[] = [
  { family: 'watchlist', pattern: /^watchlist_(\d+)$/u, def: { type: 'datetime', process: 'process', binary: true, defaultIn: [], clock: 'server' } },
  { family: 'alliance_score', pattern: /^alliance_score_(\w+)$/u, def: { type: 'integer', process: 'process', binary: true, defaultIn: [] } },
  { family: 'alliance_link', pattern: /^alliance_link_(\w+)$/u, def: { type: 'keyword', process: 'process', binary: true, defaultIn: [] } },
  { family: 'alliance_data', pattern: /^alliance_data_(\w+)$/u, def: { type: 'keyword', process: 'process', binary: true, defaultIn: [] } },
  { family: 'alliance_updated', pattern: /^alliance_updated_(\w+)$/u, def: { type: 'datetime', process: 'process', binary: true, defaultIn: [], clock: 'server' } },
];

export type DynamicFamily = 'watchlist' | 'alliance_score' | 'alliance_link' | 'alliance_data' | 'alliance_updated';

/** Other spellings seen in published queries. */
const ALIASES = new Map([['block_status', 'blocked_status']]);

/** `_filemod` and `_process` are undocumented but used in published queries. */
const JOINS = new Map<string, BinaryJoin>([
  ['process', 'process'], ['parent', 'parent'], ['child', 'child'], ['modload', 'modload'],
  ['filewrite', 'filewrite'], ['filemod', 'filewrite'],
]);

const BY_NAME = new Map(FIELDS.map((def) => [def.name, def]));

export interface ResolvedField {
  /** Canonical name: the catalog's, or the dynamic one as written (`watchlist_12`). */
  readonly name: string;
  readonly def: FieldDef;
  readonly source: FieldSource;
  readonly join?: BinaryJoin;
  readonly dynamic?: { readonly family: DynamicFamily; readonly key: string };
}

export type Resolution = ResolvedField | { readonly unknown: string; readonly hint?: string };

export function resolveField(written: string, index: IndexName): Resolution {
  if (isRecordIndex(index)) return resolveRecordField(written, index);
  const name = ALIASES.get(written.toLowerCase()) ?? written.toLowerCase();
  const def = BY_NAME.get(name);
  if (def) {
    if (index === 'binary') return def.binary ? { name, def, source: 'binary' } : notIn(name, index);
    if (!def.process) return notIn(name, index);
    return { name, def, source: def.process, ...(def.process === 'binary' ? { join: 'process' as const } : {}) };
  }
  for (const dynamic of DYNAMIC) {
    const key = dynamic.pattern.exec(name)?.[1];
    if (key !== undefined) {
      return { name, def: { name, ...dynamic.def }, source: index === 'binary' ? 'binary' : 'process', dynamic: { family: dynamic.family, key } };
    }
  }
  const joined = /^(\w+)_([a-z]+)$/u.exec(name);
  const base = joined && BY_NAME.get(joined[1]!);
  const join = joined && JOINS.get(joined[2]!);
  if (base?.process === 'binary' && join) {
    if (index === 'binary') return notIn(name, index);
    return { name: base.name, def: base, source: 'binary', join };
  }
  const known = FIELDS.filter((f) => (index === 'binary' ? f.binary : f.process)).map((f) => f.name);
  const guess = closest(name, known);
  const hint = distance(name, guess) <= Math.max(2, Math.floor(name.length / 4)) ? `did you mean "${guess}"?` : undefined;
  return { unknown: `Unknown field "${written}"`, ...(hint ? { hint } : {}) };
}

function notIn(name: string, index: IndexName): Resolution {
  return { unknown: `Field "${name}" is not searchable in ${index} search` };
}

export function defaultFields(index: IndexName): FieldDef[] {
  if (isRecordIndex(index)) return recordFields(index).filter((def) => def.defaultIn.includes(index));
  return FIELDS.filter((def) => def.defaultIn.includes(index));
}
