/**
 * A watchlist's search_query (reference admin §1.3) is a URL query string such as
 * `cb.urlver=1&q=process_name%3Acmd.exe&cb.q.hostname=web1`, kept verbatim. This reads it as the
 * search parameters it stands for, which is what the matcher runs and what creating or changing a
 * watchlist checks.
 */
import { analyzeParams, QueryError, toDomainError, type AnalyzedQuery, type IndexName, type SearchParams } from '../../query/index.js';
import type { IndexType } from './watchlists.store.js';

export const SEARCH_INDEX: Record<IndexType, IndexName> = { events: 'process', modules: 'binary' };

/**
 * The parameters of a search_query. Repeated keys become lists. Text without any `=` is taken as
 * the query itself: Carbon Black kept such values (an integration stored `chrome.exe`), and a
 * bare query is what its author meant.
 */
export function watchlistSearchParams(searchQuery: string): SearchParams {
  if (!searchQuery.includes('=')) return { q: decodeLoosely(searchQuery) };
  const params: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(searchQuery)) {
    const seen = params[key];
    params[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return params;
}

/** The watchlist's search, analyzed for its index; a QueryError when it cannot be read. */
export function analyzeWatchlistQuery(searchQuery: string, indexType: IndexType, now: number): AnalyzedQuery {
  return analyzeParams(watchlistSearchParams(searchQuery), { index: SEARCH_INDEX[indexType], now });
}

/** Refuses a search the matcher could not run, as a search request would be refused (400). */
export function checkWatchlistQuery(searchQuery: string, indexType: IndexType, now: number): void {
  try {
    analyzeWatchlistQuery(searchQuery, indexType, now);
  } catch (error) {
    if (error instanceof QueryError) throw toDomainError(error);
    throw error;
  }
}

function decodeLoosely(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
