/**
 * One value against one field type (reference §4, §5): the normalized value and the kind of
 * match, or why the type cannot hold it. Several matches mean any of them (an IPv4 range that
 * wraps around zero); none means the term matches nothing.
 */
import type { RangeBound } from './ast.js';
import type { Match } from './analysis.js';
import type { FieldDef } from './fields.js';
import { cmdlineQueryTokens } from './values/cmdline.js';
import { parseTimeRange, parseTimeValue } from './values/date.js';
import { parseDomainQuery } from './values/domain.js';
import { canonicalEnumValue } from './values/enums.js';
import { canonicalGlob, hasWildcard, prefixOf, startsWithWildcard } from './values/glob.js';
import { looksLikeIpv6, parseIpv4Query, parseIpv4Range, parseIpv6Query, parseIpv6Range } from './values/ip.js';
import { isHashPattern, normalizeHash, normalizeKeyword } from './values/keyword.js';
import { parseInteger, parseLong } from './values/number.js';
import { normalizePath, PATH_SEPARATOR } from './values/path.js';
import { textQueryTokens } from './values/text.js';

export type MatchResult = readonly Match[] | { readonly invalid: string };

const bad = (invalid: string) => ({ invalid });

export function matchTerm(def: FieldDef, value: string, quoted: boolean, now: number): MatchResult {
  if (value === '') return [];
  const wildcard = !quoted && hasWildcard(value);
  switch (def.type) {
    case 'keyword':
      return [keywordMatch(normalizeKeyword(value), wildcard)];
    case 'md5':
    case 'sha256': {
      const digits = def.type === 'md5' ? 32 : 64;
      if (wildcard) return isHashPattern(value, digits) ? [keywordMatch(value.toLowerCase(), true)] : bad(`Expected ${digits} hexadecimal digits`);
      const hash = normalizeHash(value, digits);
      return hash ? [{ kind: 'exact', value: hash }] : bad(`Expected ${digits} hexadecimal digits`);
    }
    case 'enum': {
      if (wildcard) return [keywordMatch(normalizeKeyword(value), true)];
      const canonical = canonicalEnumValue(def.values ?? {}, value);
      return canonical !== undefined
        ? [{ kind: 'exact', value: canonical }]
        : bad(`Expected one of ${Object.keys(def.values ?? {}).map((v) => `"${v}"`).join(', ')}`);
    }
    case 'text':
      return tokensMatch(textQueryTokens(value, wildcard), wildcard);
    case 'cmdline':
      return tokensMatch(cmdlineQueryTokens(value), wildcard);
    case 'path':
      return pathMatch(normalizePath(value, { registry: def.registry ?? false }), wildcard);
    case 'domain': {
      if (wildcard) return [keywordMatch(normalizeKeyword(value), true)];
      const domain = parseDomainQuery(value);
      return 'invalid' in domain ? domain : [{ kind: 'domain', ...domain }];
    }
    case 'ipaddr':
    case 'ipv6addr': {
      if (looksLikeIpv6(value)) {
        const range = parseIpv6Query(value);
        return 'invalid' in range ? range : [{ kind: 'ipv6_range', ...range }];
      }
      const range = parseIpv4Query(value);
      return 'invalid' in range ? range : [{ kind: 'ipv4_range', ...range }];
    }
    case 'count':
    case 'integer': {
      const number = parseInteger(value);
      return typeof number === 'number' ? [{ kind: 'number_range', min: number, max: number }] : number;
    }
    case 'long': {
      const long = parseLong(value);
      return typeof long === 'bigint' ? [{ kind: 'long_range', min: long, max: long }] : long;
    }
    case 'datetime': {
      const time = parseTimeValue(value, now);
      return 'invalid' in time ? time : [{ kind: 'time_range', ...time }];
    }
    case 'bool': {
      const lower = value.toLowerCase();
      return lower === 'true' || lower === 'false' ? [{ kind: 'bool', value: lower === 'true' }] : bad('Expected true or false');
    }
  }
}

export function matchRange(def: FieldDef, lower: RangeBound | null, upper: RangeBound | null, now: number): MatchResult {
  const [low, high] = [lower?.value ?? null, upper?.value ?? null];
  switch (def.type) {
    case 'count':
    case 'integer': {
      const [min, max] = [low === null ? null : parseInteger(low), high === null ? null : parseInteger(high)];
      if (typeof min === 'object' && min !== null) return min;
      if (typeof max === 'object' && max !== null) return max;
      return min !== null && max !== null && min > max ? [] : [{ kind: 'number_range', min, max }];
    }
    case 'long': {
      const [min, max] = [low === null ? null : parseLong(low), high === null ? null : parseLong(high)];
      if (typeof min === 'object' && min !== null) return min;
      if (typeof max === 'object' && max !== null) return max;
      return min !== null && max !== null && min > max ? [] : [{ kind: 'long_range', min, max }];
    }
    case 'datetime': {
      const time = parseTimeRange(low, high, now);
      if ('invalid' in time) return time;
      return time.from !== null && time.to !== null && time.from >= time.to ? [] : [{ kind: 'time_range', ...time }];
    }
    case 'ipaddr':
    case 'ipv6addr': {
      // A bound written as IPv6 picks that family; with both open (`[* TO *]`) the field's own is meant.
      const open = low === null && high === null;
      if (open ? def.type === 'ipv6addr' : [low, high].some((bound) => bound !== null && looksLikeIpv6(bound))) {
        const ranges = parseIpv6Range(low, high);
        return 'invalid' in ranges ? ranges : ranges.map((range) => ({ kind: 'ipv6_range', ...range }));
      }
      const ranges = parseIpv4Range(low, high);
      return 'invalid' in ranges ? ranges : ranges.map((range) => ({ kind: 'ipv4_range', ...range }));
    }
    default:
      return bad(`A range needs a number, date or address field; this is a ${def.type} field`);
  }
}

/** Whether a match starts with a wildcard, the kind Carbon Black blocks by default (§3). */
export function hasLeadingWildcard(match: Match): boolean {
  switch (match.kind) {
    case 'prefix':
      return match.value === '';
    case 'wildcard':
    case 'subpath_wildcard':
      return startsWithWildcard(match.pattern);
    case 'tokens':
      return match.wildcard && startsWithWildcard(match.tokens[0] ?? '');
    default:
      return false;
  }
}

function keywordMatch(normalized: string, wildcard: boolean): Match {
  if (!wildcard) return { kind: 'exact', value: normalized };
  const pattern = canonicalGlob(normalized);
  const prefix = prefixOf(pattern);
  return prefix !== undefined ? { kind: 'prefix', value: prefix } : { kind: 'wildcard', pattern };
}

function tokensMatch(tokens: string[], wildcard: boolean): MatchResult {
  if (tokens.length === 0) return [];
  return [{ kind: 'tokens', tokens: wildcard ? tokens.map(canonicalGlob) : tokens, wildcard: wildcard && tokens.some(hasWildcard) }];
}

function pathMatch(normalized: string, wildcard: boolean): MatchResult {
  if (normalized === '') return bad('Expected a path');
  if (!wildcard) return [{ kind: 'subpath', value: normalized }];
  const pattern = canonicalGlob(normalized);
  // Every trailing sub-path is already indexed, so `*\system32\ntdll.dll` is the doc's advised
  // `system32\ntdll.dll` and needs no leading wildcard.
  const rest = pattern.slice(2);
  if (pattern.startsWith(`*${PATH_SEPARATOR}`) && rest !== '' && !hasWildcard(rest)) return [{ kind: 'subpath', value: rest }];
  return [{ kind: 'subpath_wildcard', pattern }];
}
