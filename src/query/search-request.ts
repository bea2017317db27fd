/**
 * The non-query parameters of a search request (reference core §3.2, §5.2) as process and binary
 * search share them: paging, sort, facets, and the `terms` echo. Values arrive as a query string
 * (repeated keys give lists) or a JSON body (scalars or lists); a parameter given as a list means
 * its first value, as the legacy client's `"rows": [10]`. Bad values are a 400 naming the
 * parameter, never a silent default.
 */
import { createHash } from 'node:crypto';
import { InvalidRequestError } from '../domain/errors.js';
import type { QueryNode } from './ast.js';
import { queryFromParams, type SearchParams } from './params.js';
import { serialize } from './serialize.js';
import { parseTimeBound } from './values/date.js';

/** Largest page a search returns; a client asking for more is told so rather than given less. */
export const MAX_ROWS = 10_000;

export function scalarParam(params: SearchParams, key: string): string | undefined {
  const raw = params[key];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined || value === null ? undefined : String(value);
}

function wholeNumber(params: SearchParams, key: string, fallback: number, max: number): number {
  const text = scalarParam(params, key)?.trim();
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new InvalidRequestError(`${key} must be a whole number from 0 to ${max}`);
  }
  return value;
}

export function pageParams(params: SearchParams): { start: number; rows: number } {
  return { start: wholeNumber(params, 'start', 0, Number.MAX_SAFE_INTEGER), rows: wholeNumber(params, 'rows', 10, MAX_ROWS) };
}

/** `sort=<field> [asc|desc]`; the field one of `allowed`. */
export function sortParam<K extends string>(params: SearchParams, allowed: readonly K[], fallback: { key: K; descending: boolean }) {
  const text = scalarParam(params, 'sort')?.trim();
  if (!text) return fallback;
  const [field = '', direction = 'desc', extra] = text.toLowerCase().split(/\s+/u);
  if (extra !== undefined || (direction !== 'asc' && direction !== 'desc') || !allowed.includes(field as K)) {
    throw new InvalidRequestError(`sort must be "<field> asc|desc" with field one of ${allowed.join(', ')}`);
  }
  return { key: field as K, descending: direction === 'desc' };
}

export function booleanParam(params: SearchParams, key: string): boolean {
  const text = scalarParam(params, key)?.trim().toLowerCase();
  if (text === undefined || text === '' || text === 'false' || text === '0') return false;
  if (text === 'true' || text === '1') return true;
  throw new InvalidRequestError(`${key} must be true or false`);
}

/**
 * Facet fields requested: `facet.field` values when facet=true; every default one when none is
 * named. `allowed` holds every field of the index (the server faceted on any), too many to list
 * in the error, which names the defaults as examples.
 */
export function facetParams<F extends string>(params: SearchParams, allowed: readonly F[], defaults: readonly F[]): F[] {
  if (!booleanParam(params, 'facet')) return [];
  const raw = params['facet.field'];
  const named = (Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw]).map((v) => String(v).trim()).filter(Boolean);
  if (named.length === 0) return [...defaults];
  const unknown = named.filter((field) => !allowed.includes(field as F));
  if (unknown.length > 0) {
    throw new InvalidRequestError(`Unknown facet field ${unknown.join(', ')}; facets are this search's field names, such as ${defaults.join(', ')}`);
  }
  return [...new Set(named as F[])];
}

/** A time parameter (cb.min_last_update …) as epoch ms: ISO 8601 as cbapi sends it, or any form the query language reads. */
export function timeParam(params: SearchParams, key: string, now: number): number | undefined {
  const text = scalarParam(params, key)?.trim();
  if (!text) return undefined;
  const time = parseTimeBound(text, now);
  if ('invalid' in time) throw new InvalidRequestError(`${key} must be a time such as 2024-05-01T00:00:00Z`);
  return time.from;
}

/** The query's terms as written, one per field term, range or phrase (the `terms` of a reply). */
export function queryTerms(params: SearchParams): string[] {
  const terms: string[] = [];
  const walk = (node: QueryNode): void => {
    if (node.kind === 'and' || node.kind === 'or') node.children.forEach(walk);
    else if (node.kind === 'not') walk(node.child);
    else if (node.kind !== 'all') terms.push(serialize(node));
  };
  walk(queryFromParams(params));
  return terms;
}

/** Carbon Black's facet entry: the count, and its share of all matches as percent (whole) and ratio (one decimal). */
export function facetEntry(name: string, count: number, total: number): { name: string; value: number; percent: number; ratio: number } {
  const share = total > 0 ? (count / total) * 100 : 0;
  return { name, value: count, percent: Math.round(share), ratio: Math.round(share * 10) / 10 };
}

/** Parameters that change what a page shows but not which documents match, in what order. */
const NOT_PART_OF_THE_RESULT = new Set(['start', 'rows', 'facet', 'facet.field', 'cb.urlver']);

/** Which snapshot a page of a search reads (ProcessSearchStore, BinarySearchStore). */
export interface PagingSnapshot {
  /** The same key on every page of one search (pagingKey). */
  key: string;
  /** Take a new snapshot (the first page) rather than read the one kept for the key. */
  fresh: boolean;
}

/** Identifies one user's search, whatever page of it is asked for (the read pool's paging snapshot key). */
export function pagingKey(index: string, userId: number, params: SearchParams): string {
  const kept = Object.keys(params).filter((key) => !NOT_PART_OF_THE_RESULT.has(key) && params[key] !== undefined).sort();
  const canonical = JSON.stringify(kept.map((key) => [key, params[key]]));
  return `${index}:${userId}:${createHash('sha256').update(canonical).digest('base64url')}`;
}
