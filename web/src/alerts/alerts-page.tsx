/**
 * Alert triage: search, refine by the search's facets, pick alerts (one by one, the page, or every alert that matches the
 * search), then set their status, assignee or ignore their reports, in one bulk call.
 */
import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { count, when } from '../format.js';
import { href, navigate } from '../router.js';
import { FacetPanels, fieldTerm, refine, type FacetEntry, type FacetPanel } from '../search/facets.js';
import { QueryBox } from '../search/query-box.js';
import { Pager } from '../search/pager.js';
import { useLoad } from '../use-load.js';

const ROWS = 50;
const ALERT_FIELDS = ['status', 'assigned_to', 'watchlist_name', 'feed_name', 'hostname', 'process_name', 'username', 'md5', 'alert_type', 'report_score', 'created_time'];
const STATUSES = ['Unresolved', 'In Progress', 'Resolved', 'False Positive'];
/** The alert search's facets (its default set), each refining the query by its own field. */
const panel = (facet: string, label: string): FacetPanel => ({ facet, label, term: fieldTerm(facet) });
const ALERT_FACETS: readonly FacetPanel[] = [
  panel('status', 'Status'), panel('alert_type', 'Type'), panel('watchlist_name', 'Watchlist'), panel('feed_name', 'Feed'),
  panel('hostname', 'Host'), panel('username', 'User'), panel('process_name', 'Process'), panel('assigned_to', 'Assigned to'),
  panel('group', 'Group'),
];

interface Alert {
  unique_id: string;
  status: string;
  created_time: string;
  assigned_to: string | null;
  watchlist_name?: string;
  feed_name?: string;
  hostname?: string;
  process_name?: string;
  report_score?: number;
}

export function AlertsPage({ params }: { params: URLSearchParams }) {
  const query = params.get('q') ?? '';
  const start = Number(params.get('start') ?? 0) || 0;
  const alerts = useLoad(`${query}|${start}`, () => get<{ results: Alert[]; total_results: number; facets: Record<string, FacetEntry[]> }>(
    '/api/v1/alert', { q: query, rows: ROWS, start, facet: 'true', 'facet.field': ALERT_FACETS.map((f) => f.facet) }));
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [allMatching, setAllMatching] = useState(false);
  const [status, setStatus] = useState(STATUSES[2]!);
  const [assignee, setAssignee] = useState('');
  const [outcome, setOutcome] = useState('');
  const go = (q: string, s: number) => { setPicked(new Set()); setAllMatching(false); navigate(href(['alerts'], { q, start: s ? String(s) : undefined })); };
  const rows = alerts.data?.results ?? [];
  const chosen = allMatching ? (alerts.data?.total_results ?? 0) : picked.size;
  const toggle = (id: string) => { const next = new Set(picked); if (!next.delete(id)) next.add(id); setPicked(next); setAllMatching(false); };
  const apply = (change: Record<string, unknown>, what: string) => {
    const target = allMatching ? { query: new URLSearchParams({ q: query }).toString() } : { alert_ids: [...picked] };
    post('/api/v1/alerts', { ...target, ...change }).then(
      () => { setOutcome(`${what}: ${count(chosen)} alerts.`); setPicked(new Set()); setAllMatching(false); alerts.reload(); },
      (e: unknown) => setOutcome(e instanceof Error ? e.message : 'The change failed.'),
    );
  };
  return (
    <div>
      <h1>Alerts</h1>
      <QueryBox id="alert-query" label="Query" value={query} fields={ALERT_FIELDS} error={alerts.error} onSubmit={(q) => go(q, 0)} />
      <fieldset class="bulk">
        <legend>{count(chosen)} selected</legend>
        <label><input type="checkbox" checked={rows.length > 0 && rows.every((a) => picked.has(a.unique_id))}
          onChange={(e) => { setAllMatching(false); setPicked(e.currentTarget.checked ? new Set(rows.map((a) => a.unique_id)) : new Set()); }} /> This page</label>
        <label><input type="checkbox" checked={allMatching} onChange={(e) => setAllMatching(e.currentTarget.checked)} /> All {count(alerts.data?.total_results)} that match</label>
        <label>Status <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>{STATUSES.map((s) => <option key={s}>{s}</option>)}</select></label>
        <button type="button" disabled={chosen === 0} onClick={() => apply({ requested_status: status }, `Set to ${status}`)}>Set status</button>
        <label>Assign to <input value={assignee} onInput={(e) => setAssignee(e.currentTarget.value)} /></label>
        <button type="button" disabled={chosen === 0} onClick={() => apply({ assigned_to: assignee || null }, 'Assigned')}>Assign</button>
        <button type="button" disabled={chosen === 0} onClick={() => apply({ set_ignored: true }, 'Ignored')}>Ignore their reports</button>
      </fieldset>
      {outcome && <p role="status">{outcome}</p>}
      {alerts.data && <Pager start={start} rows={ROWS} total={alerts.data.total_results} onPage={(s) => go(query, s)} />}
      <div class="search-body">
        <FacetPanels facets={alerts.data?.facets ?? {}} panels={ALERT_FACETS} onRefine={(term) => go(refine(query, term), 0)} />
        <table class="results">
          <thead><tr><th scope="col"><span class="visually-hidden">Selected</span></th><th scope="col">Created</th><th scope="col">Status</th><th scope="col">Source</th><th scope="col">Host</th><th scope="col">Process</th><th scope="col">Score</th><th scope="col">Assigned to</th></tr></thead>
          <tbody>
            {rows.map((a) => (
              <tr key={a.unique_id}>
                <td><input type="checkbox" aria-label={`Select alert ${a.unique_id}`} checked={allMatching || picked.has(a.unique_id)} onChange={() => toggle(a.unique_id)} /></td>
                <td>{when(a.created_time)}</td>
                <td>{a.status}</td>
                <td>{a.watchlist_name || a.feed_name || ''}</td>
                <td>{a.hostname ?? ''}</td>
                <td>{a.process_name ?? ''}</td>
                <td>{a.report_score ?? ''}</td>
                <td>{a.assigned_to ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
