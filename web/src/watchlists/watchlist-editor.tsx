/**
 * Edits one watchlist: its name and query (PUT /api/v1/watchlist/{id}) and which actions its
 * hits trigger (PUT …/action_type/{code}), each through the API a script would call.
 */
import { useState } from 'preact/hooks';
import { get, put } from '../api.js';
import { useLoad } from '../use-load.js';

export interface EditedWatchlist {
  id: string;
  name: string;
  search_query: string;
}

interface ActionTypeState {
  action_type: number;
  type: string;
  enabled: boolean;
}

const ACTION_LABELS: Record<string, string> = { email: 'Email', syslog: 'Syslog', http_post: 'HTTP POST', alert: 'Raise alerts' };

/** The stored search_query is a URL query string; the analyst edits only its q. */
function withQuery(searchQuery: string, q: string): string {
  const params = new URLSearchParams(searchQuery);
  params.set('q', q);
  return params.toString();
}

interface Props {
  watchlist: EditedWatchlist;
  onDone: (message: string) => void;
  onCancel: () => void;
}

export function WatchlistEditor({ watchlist, onDone, onCancel }: Props) {
  const actions = useLoad(`actions-${watchlist.id}`, () => get<ActionTypeState[]>(`/api/v1/watchlist/${watchlist.id}/action_type`));
  const [name, setName] = useState(watchlist.name);
  const [query, setQuery] = useState(new URLSearchParams(watchlist.search_query).get('q') ?? watchlist.search_query);
  const [enabled, setEnabled] = useState<Record<number, boolean>>({});
  const [failure, setFailure] = useState('');
  const isOn = (a: ActionTypeState) => enabled[a.action_type] ?? a.enabled;
  const save = async () => {
    try {
      await put(`/api/v1/watchlist/${watchlist.id}`, { name, search_query: withQuery(watchlist.search_query, query) });
      for (const a of actions.data ?? []) {
        if (isOn(a) !== a.enabled) await put(`/api/v1/watchlist/${watchlist.id}/action_type/${a.action_type}`, { enabled: isOn(a) });
      }
      onDone(`Watchlist ${name} saved.`);
    } catch (error) {
      setFailure(error instanceof Error ? error.message : 'The change failed.');
    }
  };
  return (
    <form class="editor" aria-label={`Edit ${watchlist.name}`} onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <label>Name <input required value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>
      <label class="wide">Query <input class="mono" required value={query} onInput={(e) => setQuery(e.currentTarget.value)} /></label>
      <fieldset>
        <legend>Actions on a hit</legend>
        {(actions.data ?? []).map((a) => (
          <label key={a.action_type}>
            <input type="checkbox" checked={isOn(a)} onChange={(e) => setEnabled({ ...enabled, [a.action_type]: e.currentTarget.checked })} />
            {' '}{ACTION_LABELS[a.type] ?? a.type}
          </label>
        ))}
      </fieldset>
      <button type="submit">Save</button>
      <button type="button" onClick={onCancel}>Cancel</button>
      {failure && <p role="alert" class="error">{failure}</p>}
    </form>
  );
}
