/** Saves the current process search as a watchlist, so new matches raise hits and alerts. */
import { useState } from 'preact/hooks';
import { post } from '../api.js';

export function WatchlistFromSearch({ query }: { query: string }) {
  const [name, setName] = useState('');
  const [outcome, setOutcome] = useState('');
  const save = () =>
    post<{ id: number }>('/api/v1/watchlist', { name, index_type: 'events', search_query: new URLSearchParams({ q: query }).toString() }).then(
      (created) => { setOutcome(`Watchlist ${created.id} created.`); setName(''); },
      (e: unknown) => setOutcome(e instanceof Error ? e.message : 'The watchlist was not created.'),
    );
  return (
    <form class="query" onSubmit={(e) => { e.preventDefault(); void save(); }}>
      <label for="watchlist-name">New watchlist from this search</label>
      <input id="watchlist-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <button type="submit" disabled={!query}>Create watchlist</button>
      {outcome && <span role="status">{outcome}</span>}
    </form>
  );
}
