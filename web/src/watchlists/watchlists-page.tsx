/**
 * Watchlists: their searches, hit counts and last hit, enabled or not, edited in place; their hits one click away.
 * The API answers every watchlist at once, so only the rows in view are drawn.
 */
import { useState } from 'preact/hooks';
import { get, put } from '../api.js';
import { count } from '../format.js';
import { VirtualTable } from '../lists/virtual-table.js';
import { href } from '../router.js';
import { useLoad } from '../use-load.js';
import { WatchlistEditor } from './watchlist-editor.js';

interface Watchlist {
  id: string;
  name: string;
  search_query: string;
  index_type: 'events' | 'modules';
  enabled: boolean;
  total_hits: string;
  last_hit: string | null;
  last_hit_count: number;
}

export function WatchlistsPage() {
  const watchlists = useLoad('watchlists', () => get<Watchlist[]>('/api/v1/watchlist'));
  const [failure, setFailure] = useState('');
  const [status, setStatus] = useState('');
  const [editing, setEditing] = useState<string | undefined>();
  const edited = (message: string) => { setEditing(undefined); setStatus(message); watchlists.reload(); };
  const setEnabled = (w: Watchlist, enabled: boolean) =>
    put(`/api/v1/watchlist/${w.id}`, { enabled }).then(() => { setFailure(''); watchlists.reload(); }, (e: unknown) => setFailure(e instanceof Error ? e.message : 'The change failed.'));
  return (
    <div>
      <h1>Watchlists</h1>
      {failure && <p role="alert" class="error">{failure}</p>}
      {status && <p role="status">{status}</p>}
      <VirtualTable label="Watchlists" columns={6} rows={watchlists.data ?? []} rowKey={(w) => w.id} deps={[editing]}
        head={<tr><th scope="col">Name</th><th scope="col">Query</th><th scope="col">Hits</th><th scope="col">Last hit</th><th scope="col">Enabled</th><th scope="col">Change</th></tr>}
        renderRow={(w) => editing === w.id ? (
          <tr><td colSpan={6}><WatchlistEditor watchlist={w} onDone={edited} onCancel={() => setEditing(undefined)} /></td></tr>
        ) : (
          <tr>
            <td>
              <a href={href([w.index_type === 'modules' ? 'binaries' : 'search'], { q: `watchlist_${w.id}:*` })}>{w.name}</a>
            </td>
            <td class="mono">{new URLSearchParams(w.search_query).get('q') ?? w.search_query}</td>
            <td>{count(Number(w.total_hits))}</td>
            <td>{w.last_hit ?? 'never'}{w.last_hit ? ` (${count(w.last_hit_count)})` : ''}</td>
            <td><input type="checkbox" aria-label={`${w.name} enabled`} checked={w.enabled} onChange={(e) => void setEnabled(w, e.currentTarget.checked)} /></td>
            <td><button type="button" onClick={() => { setStatus(''); setEditing(w.id); }}>Edit {w.name}</button></td>
          </tr>
        )} />
    </div>
  );
}
