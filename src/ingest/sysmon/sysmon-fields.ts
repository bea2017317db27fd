/**
 * Reading the fields of one Windows event as shippers flatten it (field names as in the event's
 * EventData, values as text or numbers). Every reader answers undefined for a field that is
 * absent, empty or the "-" Windows writes for "none", so the mapping has one test for "missing".
 */

/** One Windows event, flat: `EventID`, `Channel`, `Hostname`, `UtcTime`, `ProcessGuid`, … */
export type SysmonRecord = Readonly<Record<string, unknown>>;

/** The field's text under the first of the names it has (Sysmon spells a few two ways). */
export function text(record: SysmonRecord, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = record[name];
    if (typeof value === 'string') {
      if (value !== '' && value !== '-') return value;
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      return String(value);
    }
  }
  return undefined;
}

/** A decimal or (as Security events write process ids) 0x-prefixed hexadecimal integer. */
export function integer(record: SysmonRecord, ...names: string[]): number | undefined {
  const value = text(record, ...names)?.trim();
  if (value === undefined) return undefined;
  const parsed = /^0x[0-9a-f]+$/i.test(value) ? parseInt(value, 16) : /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}

const UTC_TIME = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:?\d\d)?$/;

/**
 * Epoch ms of a time as Sysmon writes `UtcTime` ("2020-10-18 23:50:05.910", always UTC) or as
 * shippers write ISO times ("2020-12-19T06:59:28.410Z"). A zone, when given, is honoured; without
 * one the time is taken as UTC only if `zoneless` says so (UtcTime), since Windows' other time
 * fields are local time.
 */
export function parseTime(value: string | undefined, zoneless: 'utc' | 'refuse'): number | undefined {
  return (zoneless === 'utc' && value !== undefined ? sysmonUtcTime(value) : undefined) ?? parseTimeByPattern(value, zoneless);
}

const DASH = 45;
const SPACE = 32;
const COLON = 58;
const DOT = 46;

/**
 * Exactly "YYYY-MM-DD hh:mm:ss.fff", the form of every UtcTime Sysmon writes, read digit by digit:
 * the pattern cost more than the rest of decoding an event. Undefined for anything else, which
 * parseTimeByPattern() then reads (an impossible date included, to refuse it the one way).
 */
function sysmonUtcTime(value: string): number | undefined {
  if (value.length !== 23 || value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH || value.charCodeAt(10) !== SPACE ||
    value.charCodeAt(13) !== COLON || value.charCodeAt(16) !== COLON || value.charCodeAt(19) !== DOT) return undefined;
  const y = digits(value, 0, 4);
  const mo = digits(value, 5, 7);
  const d = digits(value, 8, 10);
  const h = digits(value, 11, 13);
  const mi = digits(value, 14, 16);
  const s = digits(value, 17, 19);
  const ms = digits(value, 20, 23);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 || ms < 0) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}

/** The decimal number in value[from, to), or -1 if a character there is no ASCII digit. */
function digits(value: string, from: number, to: number): number {
  let number = 0;
  for (let i = from; i < to; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    number = number * 10 + digit;
  }
  return number;
}

/** parseTime() for every form it reads; exported to hold its fast path to it. */
export function parseTimeByPattern(value: string | undefined, zoneless: 'utc' | 'refuse'): number | undefined {
  const match = value === undefined ? null : UTC_TIME.exec(value.trim());
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  if (zone === undefined && zoneless === 'refuse') return undefined;
  if (+mo! < 1 || +mo! > 12 || +d! < 1 || +d! > 31 || +h! > 23 || +mi! > 59 || +s! > 59) return undefined;
  const ms = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!, Number((fraction ?? '0').padEnd(3, '0').slice(0, 3)));
  if (Number.isNaN(ms)) return undefined;
  if (zone === undefined || zone === 'Z') return ms;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return ms - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}

const GUID = /^\{?([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})\}?$/i;

/**
 * When a Sysmon process GUID says its process started, epoch ms (whole seconds). Sysmon builds
 * the GUID from a machine part, the process's creation time in Unix seconds (the GUID's second and
 * third groups, low half first) and a per-boot counter, so the time is the same in every event
 * that names the process. Undefined for text that is no GUID and for the all-zero GUID Sysmon
 * writes when it does not know the process.
 */
export function guidStartMs(value: string | undefined): number | undefined {
  const seconds = value === undefined ? undefined : sysmonGuidSeconds(value);
  if (seconds === undefined) return guidStartMsByPattern(value);
  return seconds === 0 ? undefined : seconds * 1000;
}

/** guidStartMs() for every form it reads; exported to hold its fast path to it. */
export function guidStartMsByPattern(value: string | undefined): number | undefined {
  const match = value === undefined ? null : GUID.exec(value.trim());
  if (!match) return undefined;
  const seconds = parseInt(match[3]! + match[2]!, 16);
  return seconds === 0 ? undefined : seconds * 1000;
}

const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
/** Where the braced GUID's dashes are, and its second and third groups' hex digits, third first. */
const GUID_DASHES: ReadonlySet<number> = new Set([9, 14, 19, 24]);
const GUID_SECONDS_DIGITS = [15, 16, 17, 18, 10, 11, 12, 13];

/**
 * The seconds in exactly "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}", as Sysmon writes each of the
 * one to three GUIDs of an event, read character by character: the pattern and its match cost a
 * good part of mapping one. Undefined for anything else, which guidStartMsByPattern() then reads.
 */
function sysmonGuidSeconds(value: string): number | undefined {
  if (value.length !== 38 || value.charCodeAt(0) !== OPEN_BRACE || value.charCodeAt(37) !== CLOSE_BRACE) return undefined;
  for (let i = 1; i < 37; i++) {
    if (GUID_DASHES.has(i) ? value.charCodeAt(i) !== DASH : hexDigit(value.charCodeAt(i)) < 0) return undefined;
  }
  let seconds = 0;
  for (const i of GUID_SECONDS_DIGITS) seconds = seconds * 16 + hexDigit(value.charCodeAt(i));
  return seconds;
}

/** The value of a hexadecimal digit's character code (either case), or -1. */
function hexDigit(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

export interface FileHashes {
  md5?: string;
  sha256?: string;
}

/** The MD5 and SHA256 of Sysmon's `Hashes` ("SHA1=…,MD5=…,SHA256=…,IMPHASH=…", or one bare hash). */
export function hashes(value: string | undefined): FileHashes {
  const found: FileHashes = {};
  if (value === undefined) return found;
  for (const part of value.split(',')) {
    const equals = part.indexOf('=');
    const name = equals < 0 ? '' : part.slice(0, equals).trim().toUpperCase();
    const hash = part.slice(equals + 1).trim();
    if ((name === 'MD5' || name === '') && /^[0-9a-f]{32}$/i.test(hash)) found.md5 = hash;
    else if ((name === 'SHA256' || name === '') && /^[0-9a-f]{64}$/i.test(hash)) found.sha256 = hash;
  }
  return found;
}

const HIVES: readonly [string, string][] = [
  ['HKLM', '\\registry\\machine'],
  ['HKEY_LOCAL_MACHINE', '\\registry\\machine'],
  ['HKU', '\\registry\\user'],
  ['HKEY_USERS', '\\registry\\user'],
  ['HKCR', '\\registry\\machine\\software\\classes'],
  ['HKEY_CLASSES_ROOT', '\\registry\\machine\\software\\classes'],
];

/**
 * A registry path in the kernel form Carbon Black sensors report and queries use
 * (`\registry\machine\software\…`), from Sysmon's `HKLM\SOFTWARE\…` form. HKCU cannot be turned
 * into a user's SID here and stays as written.
 */
export function registryPath(value: string): string {
  const slash = value.indexOf('\\');
  const hive = (slash < 0 ? value : value.slice(0, slash)).toUpperCase();
  const kernel = HIVES.find(([name]) => name === hive)?.[1];
  return kernel === undefined ? value : kernel + (slash < 0 ? '' : value.slice(slash));
}
