/**
 * Fields with a fixed set of values (reference §5.9 to §5.11 and the §6 table), matched
 * case-insensitively. Each value has a canonical lower-case form the index stores and the query
 * compares; aliases are other spellings people (and our own sensor protocol) use for it.
 */
import { normalizeKeyword } from './keyword.js';

export interface EnumValues {
  /** Canonical value → its aliases. */
  readonly [canonical: string]: readonly string[];
}

export const DIGSIG_RESULTS: EnumValues = {
  signed: [],
  unsigned: [],
  'bad signature': [],
  'invalid signature': [],
  expired: [],
  'invalid chain': [],
  'untrusted root': [],
  'explicit distrust': [],
};

/** The doc's own misspellings are the canonical values; corrected spellings are aliases. */
export const BLOCKED_STATUSES: EnumValues = {
  processterminated: [],
  notterminatedcbprocess: [],
  notterminatedsystemprocess: [],
  notterminatedcriticialsystemprocess: ['notterminatedcriticalsystemprocess'],
  notterminatedwhiltestedpath: ['notterminatedwhitelistedpath'],
  notterminatedopenprocesserror: [],
  notterminatedterminateerror: [],
};

/** The `_target` forms return the target process instead of the actor (§5.11). */
export const CROSSPROC_TYPES: EnumValues = {
  processopen: ['process_open'],
  remotethread: ['remote_thread'],
  processopentarget: ['process_open_target'],
  remotethreadtarget: ['remote_thread_target'],
  threadopen: ['thread_open'],
};

export const HOST_TYPES: EnumValues = {
  workstation: [],
  server: [],
  'domain controller': ['domain_controller', 'domaincontroller'],
};

export const OS_TYPES: EnumValues = {
  windows: [],
  osx: ['macos', 'mac'],
  linux: [],
};

/** The canonical form of a value, or undefined when the field has no such value. */
export function canonicalEnumValue(values: EnumValues, value: string): string | undefined {
  const wanted = normalizeKeyword(value);
  for (const [canonical, aliases] of Object.entries(values)) {
    if (canonical === wanted || aliases.includes(wanted)) return canonical;
  }
  return undefined;
}
