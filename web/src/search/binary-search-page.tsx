/** Binary search beside process search: the same query box over the binary index, in the URL too. */
import { get } from '../api.js';
import { count, when } from '../format.js';
import { href, navigate } from '../router.js';
import { useLoad } from '../use-load.js';
import { FIELD_NAMES } from './fields.js';
import { Pager } from './pager.js';
import { QueryBox } from './query-box.js';

const ROWS = 20;

interface BinaryDoc {
  md5: string;
  observed_filename?: string[];
  digsig_result?: string;
  digsig_publisher?: string;
  product_name?: string;
  host_count?: number;
  server_added_timestamp?: string;
}

export function BinarySearchPage({ params }: { params: URLSearchParams }) {
  const query = params.get('q') ?? '';
  const start = Number(params.get('start') ?? 0) || 0;
  const search = useLoad(`${query}|${start}`, () =>
    get<{ results: BinaryDoc[]; total_results: number }>('/api/v1/binary', { q: query, rows: ROWS, start }));
  const go = (q: string, s: number) => navigate(href(['binaries'], { q, start: s ? String(s) : undefined }));
  return (
    <div>
      <h1>Binary search</h1>
      <QueryBox id="binary-query" label="Query" value={query} fields={FIELD_NAMES.binary} error={search.error} onSubmit={(q) => go(q, 0)} />
      {search.data && (
        <section aria-label="Results">
          <Pager start={start} rows={ROWS} total={search.data.total_results} onPage={(s) => go(query, s)} />
          <table class="results">
            <thead>
              <tr><th scope="col">MD5</th><th scope="col">File names</th><th scope="col">Signature</th><th scope="col">Publisher</th><th scope="col">Hosts</th><th scope="col">First seen</th></tr>
            </thead>
            <tbody>
              {search.data.results.map((b) => (
                <tr key={b.md5}>
                  <td class="mono">{b.md5}</td>
                  <td>{(b.observed_filename ?? []).join(', ')}</td>
                  <td>{b.digsig_result ?? ''}</td>
                  <td>{b.digsig_publisher ?? ''}</td>
                  <td>{count(b.host_count)}</td>
                  <td>{when(b.server_added_timestamp)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </div>
  );
}
