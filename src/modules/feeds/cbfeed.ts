/**
 * The cbfeeds file format (reference admin §4.3): {"feedinfo": {…}, "reports": [{…}]}. parseFeed
 * checks what the cbfeeds validator checks and gives back the feed with each report's IOC values
 * normalized the way events are (lower case, IPv6 in RFC 5952 form), so that matching compares
 * like with like. The first problem found is a FeedFormatError naming where it is.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import secureJson from 'secure-json-parse';
import { QueryError } from '../../query/index.js';
import { bigIntToIpv6, intToIpv4, ipv4ToInt, ipv6ToBigInt } from '../../query/values/ip.js';
import { analyzeWatchlistQuery } from '../watchlists/watchlist-query.js';
import {
  VALUE_IOC_TYPES,
  type FeedReport,
  type IocValue,
  type QueryIoc,
  type ValueIocType,
} from '../threat-reports/threat-report.js';

export class FeedFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedFormatError';
  }
}

export interface FeedInfo {
  name: string;
  display_name: string;
  provider_url: string;
  summary: string;
  tech_data: string;
  category: string | null;
  icon: string;
  icon_small: string;
  provider_rating: number | null;
}

export interface ParsedFeed {
  feedinfo: FeedInfo;
  reports: FeedReport[];
}

const Text = Type.String({ maxLength: 1_000_000 });
const FeedShape = Type.Object({
  feedinfo: Type.Object({
    name: Type.String({ pattern: '^[A-Za-z0-9]+$', maxLength: 256 }),
    display_name: Text,
    provider_url: Text,
    summary: Text,
    tech_data: Text,
    category: Type.Optional(Type.Union([Text, Type.Null()])),
    icon: Type.Optional(Type.Union([Text, Type.Null()])),
    icon_small: Type.Optional(Type.Union([Text, Type.Null()])),
    provider_rating: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  }),
  reports: Type.Array(Type.Object({
    id: Type.String({ pattern: '^[a-zA-Z0-9\\-_.]+$', maxLength: 1024 }),
    title: Text,
    link: Text,
    score: Type.Integer({ minimum: -100, maximum: 100 }),
    timestamp: Type.Integer({ minimum: 0 }),
    iocs: Type.Record(Type.String(), Type.Unknown()),
    description: Type.Optional(Type.Union([Text, Type.Null()])),
    tags: Type.Optional(Type.Array(Type.String({ pattern: '^[A-Za-z0-9_]{1,32}$' }))),
  })),
});

const HEX = { md5: /^[0-9a-f]{32}$/, sha256: /^[0-9a-f]{64}$/, ja3: /^[0-9a-f]{32}$/, ja3s: /^[0-9a-f]{32}$/ } as const;
const DOMAIN = /^[\p{L}\p{N}_-]+(\.[\p{L}\p{N}_-]+)*\.?$/u;

export function parseFeed(content: Buffer | string, now: number): ParsedFeed {
  let raw: unknown;
  try {
    raw = secureJson.parse(content.toString(), undefined, { protoAction: 'remove', constructorAction: 'remove' });
  } catch (error) {
    throw new FeedFormatError(`The feed is not valid JSON: ${(error as Error).message}`);
  }
  const problem = Value.Errors(FeedShape, raw).First();
  if (problem) throw new FeedFormatError(`The feed is not in the cbfeeds format: ${problem.path || '(top)'} ${problem.message}`);
  const feed = raw as Static<typeof FeedShape>;
  const seen = new Set<string>();
  const reports = feed.reports.map((report, index) => {
    const where = `/reports/${index} (${report.id})`;
    if (seen.has(report.id)) throw new FeedFormatError(`${where}: the report id appears twice`);
    seen.add(report.id);
    const { values, queries } = readIocs(report.iocs, where, now);
    return {
      id: report.id,
      title: report.title,
      description: report.description ?? '',
      link: report.link,
      score: report.score,
      timestamp: report.timestamp,
      tags: report.tags ?? [],
      iocs: report.iocs,
      values,
      queries,
    };
  });
  const info = feed.feedinfo;
  return {
    feedinfo: {
      name: info.name,
      display_name: info.display_name,
      provider_url: info.provider_url,
      summary: info.summary,
      tech_data: info.tech_data,
      category: info.category ?? null,
      icon: info.icon ?? '',
      icon_small: info.icon_small ?? '',
      provider_rating: info.provider_rating ?? null,
    },
    reports,
  };
}

/** Unknown IOC kinds (a newer format's) are kept for display and not matched. */
function readIocs(iocs: Record<string, unknown>, where: string, now: number): { values: IocValue[]; queries: QueryIoc[] } {
  const known = Object.keys(iocs).filter((key) => key === 'query' || (VALUE_IOC_TYPES as readonly string[]).includes(key));
  if (known.length === 0) throw new FeedFormatError(`${where}: iocs holds none of query, ${VALUE_IOC_TYPES.join(', ')}`);
  if (iocs.query !== undefined) {
    if (known.length > 1) throw new FeedFormatError(`${where}: a report with a query IOC holds no other IOC`);
    return { values: [], queries: readQueries(iocs.query, where, now) };
  }
  const values: IocValue[] = [];
  for (const type of known as ValueIocType[]) {
    const list = iocs[type];
    if (!Array.isArray(list)) throw new FeedFormatError(`${where}: iocs.${type} must be a list of strings`);
    for (const item of list) {
      const value = typeof item === 'string' ? normalizeIoc(type, item) : undefined;
      if (value === undefined) throw new FeedFormatError(`${where}: ${JSON.stringify(item)} is not a valid ${type}`);
      values.push(value);
    }
  }
  return { values, queries: [] };
}

/** cbfeeds ≥ 1.0 writes one object; the README and older feeds a list of them. */
function readQueries(query: unknown, where: string, now: number): QueryIoc[] {
  const list = Array.isArray(query) ? query : [query];
  if (list.length === 0) throw new FeedFormatError(`${where}: iocs.query is empty`);
  return list.map((item: unknown) => {
    const { index_type: indexType, search_query: searchQuery } = (item ?? {}) as Record<string, unknown>;
    if (indexType !== 'events' && indexType !== 'modules') {
      throw new FeedFormatError(`${where}: a query IOC's index_type is events or modules`);
    }
    if (typeof searchQuery !== 'string' || !/(^|&)(q=|cb\.q\.)/.test(searchQuery)) {
      throw new FeedFormatError(`${where}: a query IOC's search_query is a URL query string with q= or cb.q.`);
    }
    try {
      analyzeWatchlistQuery(searchQuery, indexType, now);
    } catch (error) {
      if (error instanceof QueryError) throw new FeedFormatError(`${where}: its query cannot be read: ${error.message}`);
      throw error;
    }
    return { index_type: indexType, search_query: searchQuery };
  });
}

export function normalizeIoc(type: ValueIocType, text: string): IocValue | undefined {
  const lower = text.trim().toLowerCase();
  switch (type) {
    case 'md5':
    case 'sha256':
    case 'ja3':
    case 'ja3s':
      return HEX[type].test(lower) ? { type, value: lower } : undefined;
    case 'ipv4': {
      const number = ipv4ToInt(lower);
      return number === undefined ? undefined : { type, value: intToIpv4(number), addressHex: number.toString(16).padStart(8, '0') };
    }
    case 'ipv6': {
      const number = ipv6ToBigInt(lower);
      return number === undefined ? undefined : { type, value: bigIntToIpv6(number), addressHex: number.toString(16).padStart(32, '0') };
    }
    case 'dns':
      return DOMAIN.test(lower) ? { type, value: lower.replace(/\.$/, '') } : undefined;
  }
}
