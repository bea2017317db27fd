/**
 * The event values a process search asks the term index for, as (field, value) terms indexed once
 * per segment that holds them. Values are stored in the normal form the query side compares
 * against (src/query/values), so a query never normalizes stored values itself:
 *
 * - paths (filemod, modload, regmod) as normalizePath: `\` separators, no leading one, registry
 *   control sets folded;
 * - IPv4 as 8 hex digits of the unsigned address and IPv6 as 32, so CIDR blocks and ranges are
 *   ranges of the term dictionary;
 * - crossproc_type as its canonical enum value (`process_open` → `processopen`, and the target's
 *   side `processopentarget`);
 * - the command line's words (cmdlineWords: its tokens but the extension ones, which a query
 *   finds as word endings) from the process's start event, so that a wildcard on a token
 *   (`cmdline:*shell*`) reads the distinct tokens rather than every command line.
 *
 * Field names are the query language's where one exists; `modload_md5` / `modload_sha256` feed the
 * `md5` union and the `_modload` binary join.
 */
import { cmdlineWords } from '../query/values/cmdline.js';
import { canonicalEnumValue, CROSSPROC_TYPES } from '../query/values/enums.js';
import { ipv4ToInt, ipv6ToBigInt } from '../query/values/ip.js';
import { normalizePath } from '../query/values/path.js';
import type { SensorEvent } from './event.schemas.js';
import { baseName } from './normalize.js';

/**
 * Recently computed normal forms. Sensors repeat the same module paths, written files, command
 * lines and addresses all day, and normalizing costs more than a lookup, so each distinct raw
 * value is normalized once while it stays among the recent ones.
 */
class Recent<T> {
  private values = new Map<string, T>();

  constructor(private readonly compute: (raw: string) => T) {}

  get(raw: string): T {
    let value = this.values.get(raw);
    if (value === undefined) {
      if (this.values.size >= RECENT_VALUES) this.values = new Map();
      value = this.compute(raw);
      this.values.set(raw, value);
    }
    return value;
  }
}

const RECENT_VALUES = 50_000;
const paths = new Recent((path) => normalizePath(path));
const registryPaths = new Recent((path) => normalizePath(path, { registry: true }));
const commandLines = new Recent((cmdline) => [...cmdlineWords(cmdline)]);
const addresses = new Recent((ip) => addressTerm(ip) ?? null);

/** Receives one (field, value) term of an event. */
export type TermSink = (field: string, value: string) => void;

export function eventTerms(event: SensorEvent, add: TermSink): void {
  if ('tamper' in event && event.tamper === true) add('tampered', 'true');
  switch (event.type) {
    case 'process_start':
      if (event.cmdline) for (const word of commandLines.get(event.cmdline)) add('cmdline', word);
      return;
    case 'filemod':
      add('filemod', paths.get(event.path));
      if (event.md5) add('filewrite_md5', event.md5);
      return;
    case 'regmod':
      add('regmod', registryPaths.get(event.path));
      return;
    case 'modload':
      add('modload', paths.get(event.path));
      add('modload_md5', event.md5);
      return;
    case 'netconn':
      addAddress(event.remote_ip, add);
      add('ipport', String(event.remote_port));
      if (event.domain) add('domain', event.domain);
      if (event.ja3) add('ja3', event.ja3);
      if (event.ja3s) add('ja3s', event.ja3s);
      return;
    case 'childproc':
      add('childproc_name', baseName(event.path));
      if (event.md5) add('childproc_md5', event.md5);
      return;
    case 'crossproc':
      add('crossproc_name', baseName(event.target_path));
      add('crossproc_type', crossprocType(event.action, event.is_target === true));
      if (event.target_md5) add('crossproc_md5', event.target_md5);
      return;
    case 'processblock':
      add('blocked_md5', event.blocked_md5);
      return;
    case 'process_end':
      return;
  }
}

/** The stored form of an address term: see the module comment. */
export function addressTerm(ip: string): { field: 'ipaddr' | 'ipv6addr'; value: string } | undefined {
  const v4 = ipv4ToInt(ip);
  if (v4 !== undefined) return { field: 'ipaddr', value: v4.toString(16).padStart(8, '0') };
  const v6 = ipv6ToBigInt(ip);
  return v6 === undefined ? undefined : { field: 'ipv6addr', value: v6.toString(16).padStart(32, '0') };
}

function addAddress(ip: string, add: TermSink): void {
  const term = addresses.get(ip);
  if (term) add(term.field, term.value);
}

/**
 * Canonical crossproc types by action, for the actor's and the target's side: the schema allows
 * three actions, and the enum lookup (keyword normalization, a scan of the enum) ran per event.
 */
const actorCrossprocTypes = new Map<string, string>();
const targetCrossprocTypes = new Map<string, string>();

/** The target's side of an access has its own value (`processopentarget`) where the language has one. */
function crossprocType(action: string, isTarget: boolean): string {
  const known = isTarget ? targetCrossprocTypes : actorCrossprocTypes;
  let type = known.get(action);
  if (type === undefined) {
    const actor = canonicalEnumValue(CROSSPROC_TYPES, action) ?? action;
    type = isTarget ? canonicalEnumValue(CROSSPROC_TYPES, `${actor}target`) ?? actor : actor;
    known.set(action, type);
  }
  return type;
}
