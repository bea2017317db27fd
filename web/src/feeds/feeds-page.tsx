/** Threat feeds and their reports with scores; a feed is added by its URL and synchronized on demand. */
import { useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { href } from '../router.js';
import { useLoad } from '../use-load.js';
import { AddFeed } from './add-feed.js';

interface Feed {
  id: number;
  name: string;
  display_name: string;
  enabled: boolean;
  feed_url: string;
}

interface Report {
  id: string;
  feed_id: number;
  feed_name: string;
  title: string;
  score: number;
  is_ignored?: boolean;
}

export function FeedsPage() {
  const feeds = useLoad('feeds', () => get<Feed[]>('/api/v1/feed'));
  const reports = useLoad('reports', () => get<{ results: Report[]; total_results: number }>('/api/v1/threat_report', { rows: 100 }));
  const [status, setStatus] = useState('');
  const synchronize = (feed: Feed) =>
    post(`/api/v1/feed/${feed.id}/synchronize`, {}).then(
      () => { setStatus(`${feed.display_name} synchronized.`); reports.reload(); },
      (e: unknown) => setStatus(e instanceof Error ? e.message : 'The synchronization failed.'),
    );
  return (
    <div>
      <h1>Feeds</h1>
      {status && <p role="status">{status}</p>}
      <AddFeed onAdded={(message) => { setStatus(message); feeds.reload(); reports.reload(); }} />
      <table class="results">
        <thead><tr><th scope="col">Feed</th><th scope="col">URL</th><th scope="col">Enabled</th><th scope="col">Hits</th><th scope="col">Actions</th></tr></thead>
        <tbody>
          {(feeds.data ?? []).map((feed) => (
            <tr key={feed.id}>
              <td>{feed.display_name}</td>
              <td class="mono">{feed.feed_url}</td>
              <td>{feed.enabled ? 'yes' : 'no'}</td>
              <td><a href={href(['search'], { q: `alliance_score_${feed.name}:[1 TO *]` })}>processes hit</a></td>
              <td><button type="button" onClick={() => void synchronize(feed)}>Synchronize {feed.display_name}</button></td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Reports</h2>
      <table class="results">
        <thead><tr><th scope="col">Feed</th><th scope="col">Title</th><th scope="col">Score</th></tr></thead>
        <tbody>
          {(reports.data?.results ?? []).map((r) => (
            <tr key={`${r.feed_id}/${r.id}`}>
              <td>{r.feed_name}</td>
              <td class="report-title">{r.title}</td>
              <td>{r.score}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
