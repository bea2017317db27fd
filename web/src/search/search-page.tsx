/**
 * Process search. Everything that defines the search (query, time limits, page) lives in the
 * URL, so the back button, a bookmark or a shared link gives the same search.
 */
import { get } from '../api.js';
import { href, navigate } from '../router.js';
import { useLoad } from '../use-load.js';
import { FacetPanels, PROCESS_FACETS, refine, type FacetEntry } from './facets.js';
import { FIELD_NAMES } from './fields.js';
import { Pager } from './pager.js';
import { ProcessResults, type ProcessDoc } from './process-results.js';
import { QueryBox } from './query-box.js';
import { TIME_FILTERS, TimeFilters } from './time-filters.js';
import { WatchlistFromSearch } from './watchlist-from-search.js';

const ROWS = 20;

interface SearchReply {
  results: ProcessDoc[];
  total_results: number;
  facets: Record<string, FacetEntry[]>;
}

export function SearchPage({ params }: { params: URLSearchParams }) {
  const query = params.get('q') ?? '';
  const start = Number(params.get('start') ?? 0) || 0;
  const times = Object.fromEntries(TIME_FILTERS.map(({ param }) => [param, params.get(param) ?? undefined]));
  const go = (changes: Record<string, string | undefined>) => {
    const next = { ...Object.fromEntries(params), ...changes };
    navigate(href(['search'], next));
  };
  const search = useLoad(`${query}|${start}|${JSON.stringify(times)}`, () =>
    get<SearchReply>('/api/v1/process', {
      q: query, rows: ROWS, start, sort: 'last_update desc', 'cb.group': 'id',
      facet: true, 'facet.field': PROCESS_FACETS.map((f) => f.facet), ...times,
    }));

  return (
    <div class="search-page">
      <h1>Process search</h1>
      <QueryBox id="process-query" label="Query" value={query} fields={FIELD_NAMES.process} error={search.error}
        onSubmit={(q) => go({ q, start: undefined })} />
      <TimeFilters values={params} onChange={(param, value) => go({ [param]: value || undefined, start: undefined })} />
      {search.data && (
        <div class="search-body">
          <FacetPanels facets={search.data.facets} onRefine={(term) => go({ q: refine(query, term), start: undefined })} />
          <section class="search-results" aria-label="Results" aria-busy={search.loading}>
            <Pager start={start} rows={ROWS} total={search.data.total_results} onPage={(s) => go({ start: String(s) })} />
            <ProcessResults results={search.data.results} />
          </section>
        </div>
      )}
      {query && <WatchlistFromSearch query={query} />}
    </div>
  );
}
