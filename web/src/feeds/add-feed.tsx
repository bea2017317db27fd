/**
 * Adds a threat feed by its URL (POST /api/v1/feed): the server downloads it at once, so a feed
 * that cannot be fetched or read is refused here with the server's reason.
 */
import { useState } from 'preact/hooks';
import { post } from '../api.js';

interface Created {
  id: number;
  display_name: string;
}

const EMPTY = { feed_url: '', enabled: true, validate_server_cert: true, use_proxy: false, username: '', password: '' };

export function AddFeed({ onAdded }: { onAdded: (message: string) => void }) {
  const [form, setForm] = useState(EMPTY);
  const [failure, setFailure] = useState('');
  const add = () => {
    const { username, password, ...settings } = form;
    // Credentials only when given: an empty one would be stored as a credential.
    const body = { ...settings, ...(username ? { username } : {}), ...(password ? { password } : {}) };
    return post<Created>('/api/v1/feed', body).then(
      (created) => { setFailure(''); setForm(EMPTY); onAdded(`Feed ${created.display_name} added.`); },
      (e: unknown) => setFailure(e instanceof Error ? e.message : 'The feed was not added.'),
    );
  };
  const flag = (key: 'enabled' | 'validate_server_cert' | 'use_proxy', label: string) => (
    <label><input type="checkbox" checked={form[key]} onChange={(e) => setForm({ ...form, [key]: e.currentTarget.checked })} /> {label}</label>
  );
  return (
    <form class="editor" aria-labelledby="add-feed-heading" onSubmit={(e) => { e.preventDefault(); void add(); }}>
      <h2 id="add-feed-heading">Add a feed</h2>
      <label class="wide">Feed URL <input type="url" required value={form.feed_url} placeholder="https://intel.example/feed.json"
        onInput={(e) => setForm({ ...form, feed_url: e.currentTarget.value })} /></label>
      {flag('enabled', 'Enabled')}
      {flag('validate_server_cert', 'Check the server\'s certificate')}
      {flag('use_proxy', 'Through the proxy')}
      <label>Feed username <input autoComplete="off" value={form.username} onInput={(e) => setForm({ ...form, username: e.currentTarget.value })} /></label>
      <label>Feed password <input type="password" autoComplete="new-password" value={form.password} onInput={(e) => setForm({ ...form, password: e.currentTarget.value })} /></label>
      <button type="submit">Add feed</button>
      {failure && <p role="alert" class="error">{failure}</p>}
    </form>
  );
}
