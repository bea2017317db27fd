/**
 * A record search request (alerts, threat reports) as Carbon Black clients send it, over GET or
 * as a POST body whose values may be lists (`{"q": ["…"], "rows": 10, "facet": ["true", "true"]}`):
 * the query (q, cb.q.*, cb.fq.*), paging, `sort=<field> asc|desc[, …]` and facets. This reads one
 * into the analyzed predicate and checked options a record store runs.
 */
import { InvalidRequestError } from '../domain/errors.js';
import type { Predicate } from './analysis.js';
import { QueryError } from './errors.js';
import type { RecordIndex } from './fields.records.js';
import { analyzeParams, queryFromParams, type SearchParams } from './params.js';
import { serialize } from './serialize.js';

export interface SortKey {
  field: string;
  descending: boolean;
}

export interface RecordSearch {
  predicate: Predicate;
  /** The query's top-level terms in canonical form, for the response's `terms`. */
  terms: string[];
  start: number;
  rows: number;
  sort: SortKey[];
  /** Fields to facet on; empty when no facets were asked for. */
  facets: string[];
}

export interface RecordSearchRules {
  index: RecordIndex;
  now: number;
  defaultRows: number;
  maxRows: number;
  /** Field names a client may sort by. */
  sortable: readonly string[];
  defaultSort: readonly SortKey[];
  /** Field names a client may facet on, and those faceted when facets are asked for without fields. */
  facetable: readonly string[];
  defaultFacets: readonly string[];
}

export function readRecordSearch(params: SearchParams, rules: RecordSearchRules): RecordSearch {
  const analyzed = analyzeParams(params, { index: rules.index, now: rules.now });
  const whole = queryFromParams(params);
  const terms = whole.kind === 'all' ? [] : whole.kind === 'and' ? whole.children.map(serialize) : [serialize(whole)];
  const facetOn = [first(params.facet), first(params.facets)].some((value) => String(value).toLowerCase() === 'true');
  const asked = list(params['facet.field']);
  return {
    predicate: analyzed.predicate,
    terms,
    start: wholeNumber(params.start, 'start', 0, Number.MAX_SAFE_INTEGER),
    rows: wholeNumber(params.rows, 'rows', rules.defaultRows, rules.maxRows),
    sort: readSort(first(params.sort), rules),
    facets: facetOn ? checkedFields(asked.length > 0 ? asked : rules.defaultFacets, rules.facetable, 'facet.field') : [],
  };
}

function readSort(text: unknown, rules: RecordSearchRules): SortKey[] {
  if (text === undefined || String(text).trim() === '') return [...rules.defaultSort];
  return String(text).split(',').map((clause) => {
    const [field = '', direction = 'asc', ...rest] = clause.trim().split(/\s+/);
    if (rest.length > 0 || !/^(asc|desc)$/i.test(direction)) {
      throw new InvalidRequestError(`sort: expected "<field> asc" or "<field> desc", not "${clause.trim()}"`);
    }
    return { field: checkedFields([field], rules.sortable, 'sort')[0]!, descending: direction.toLowerCase() === 'desc' };
  });
}

function checkedFields(fields: readonly string[], allowed: readonly string[], parameter: string): string[] {
  return fields.map((field) => {
    const name = field.toLowerCase();
    if (!allowed.includes(name)) {
      throw new QueryError('unknown_field', `Cannot use "${field}" in ${parameter}; one of ${allowed.join(', ')}`, 0, parameter);
    }
    return name;
  });
}

function wholeNumber(raw: unknown, name: string, fallback: number, max: number): number {
  const value = first(raw);
  if (value === undefined || value === '') return fallback;
  const number = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < 0 || number > max) {
    throw new InvalidRequestError(`${name}: expected a whole number from 0 to ${max}`);
  }
  return number;
}

function first(raw: unknown): unknown {
  return Array.isArray(raw) ? raw[0] : raw;
}

function list(raw: unknown): string[] {
  const values = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  return values.map(String).flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);
}

export interface FacetEntry {
  name: string;
  value: number;
  /** Share of all matches, 0-100, rounded. */
  percent: number;
  /** The same share to one decimal (reference core §3.5: both measure the share of the result set). */
  ratio: number;
}

/** Facet entries from value counts (most frequent first) over `total` matches. */
export function facetEntries(counts: readonly { value: string; count: number }[], total: number): FacetEntry[] {
  return counts.map(({ value, count }) => {
    const share = total === 0 ? 0 : (count / total) * 100;
    return { name: value, value: count, percent: Math.round(share), ratio: Math.round(share * 10) / 10 };
  });
}
