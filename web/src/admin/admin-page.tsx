/**
 * Administration for global admins: users, teams and their group access, sensor groups with install codes, bans, storage partitions.
 * The users and bans APIs answer every row at once, so those two lists draw only the rows in view.
 */
import { useState } from 'preact/hooks';
import { get, post, put } from '../api.js';
import { count } from '../format.js';
import { VirtualTable } from '../lists/virtual-table.js';
import { useLoad } from '../use-load.js';
import { PartitionsSection } from './partitions-section.js';
import { TeamsSection } from './teams-section.js';

interface User { username: string; first_name: string; last_name: string; email: string; global_admin: boolean; teams: { id: number; name: string }[] }
interface Group { id: number; name: string }
interface Ban { md5hash: string; text: string | null; enabled: boolean; block_count: string | number; last_block_time: string | null; last_block_hostname: string | null }

const explain = (e: unknown) => (e instanceof Error ? e.message : 'The change failed.');

function Users() {
  const users = useLoad('users', () => get<User[]>('/api/users'));
  const [form, setForm] = useState({ username: '', password: '', global_admin: false });
  const [status, setStatus] = useState('');
  const create = () => post('/api/user', { ...form, first_name: '', last_name: '', email: '' })
    .then(() => { setStatus(`User ${form.username} created.`); setForm({ username: '', password: '', global_admin: false }); users.reload(); }, (e: unknown) => setStatus(explain(e)));
  return (
    <section aria-labelledby="users-heading">
      <h2 id="users-heading">Users</h2>
      <VirtualTable label="Users" columns={4} rows={users.data ?? []} rowKey={(u) => u.username}
        head={<tr><th scope="col">Username</th><th scope="col">Name</th><th scope="col">Global admin</th><th scope="col">Teams</th></tr>}
        renderRow={(u) => <tr><td>{u.username}</td><td>{`${u.first_name} ${u.last_name}`.trim()}</td><td>{u.global_admin ? 'yes' : 'no'}</td><td>{u.teams.map((t) => t.name).join(', ')}</td></tr>} />
      <form class="query" onSubmit={(e) => { e.preventDefault(); void create(); }}>
        <label>New user <input required value={form.username} onInput={(e) => setForm({ ...form, username: e.currentTarget.value })} /></label>
        <label>Password <input type="password" autoComplete="new-password" required value={form.password} onInput={(e) => setForm({ ...form, password: e.currentTarget.value })} /></label>
        <label><input type="checkbox" checked={form.global_admin} onChange={(e) => setForm({ ...form, global_admin: e.currentTarget.checked })} /> Global admin</label>
        <button type="submit">Create user</button>
        {status && <span role="status">{status}</span>}
      </form>
    </section>
  );
}

function Groups() {
  const groups = useLoad('groups', () => get<Group[]>('/api/group'));
  const [codes, setCodes] = useState<Record<number, string>>({});
  const show = (id: number) => get<{ install_code: string }>(`/api/v1/group/${id}/install_code`).then((r) => setCodes((c) => ({ ...c, [id]: r.install_code })));
  return (
    <section aria-labelledby="groups-heading">
      <h2 id="groups-heading">Sensor groups</h2>
      <table class="results">
        <thead><tr><th scope="col">Group</th><th scope="col">Install code</th></tr></thead>
        <tbody>{(groups.data ?? []).map((g) => (
          <tr key={g.id}><td>{g.name}</td><td class="mono">{codes[g.id] ?? <button type="button" onClick={() => void show(g.id)}>Show install code of {g.name}</button>}</td></tr>
        ))}</tbody>
      </table>
    </section>
  );
}

function Bans() {
  const bans = useLoad('bans', () => get<Ban[]>('/api/v1/banning/blacklist'));
  const [failure, setFailure] = useState('');
  const setEnabled = (b: Ban, enabled: boolean) => put(`/api/v1/banning/blacklist/${b.md5hash}`, { enabled }).then(bans.reload, (e: unknown) => setFailure(explain(e)));
  return (
    <section aria-labelledby="bans-heading">
      <h2 id="bans-heading">Banned hashes</h2>
      {failure && <p role="alert" class="error">{failure}</p>}
      <VirtualTable label="Banned hashes" columns={5} rows={bans.data ?? []} rowKey={(b) => b.md5hash}
        head={<tr><th scope="col">MD5</th><th scope="col">Note</th><th scope="col">Blocks</th><th scope="col">Last block</th><th scope="col">Enabled</th></tr>}
        renderRow={(b) => (
          <tr>
            <td class="mono">{b.md5hash}</td><td>{b.text ?? ''}</td><td>{count(Number(b.block_count))}</td><td>{b.last_block_time ? `${b.last_block_time} on ${b.last_block_hostname ?? '?'}` : ''}</td>
            <td><input type="checkbox" aria-label={`Ban of ${b.md5hash} enabled`} checked={b.enabled} onChange={(e) => void setEnabled(b, e.currentTarget.checked)} /></td>
          </tr>
        )} />
    </section>
  );
}

export function AdminPage() {
  return (
    <div>
      <h1>Administration</h1>
      <Users />
      <TeamsSection />
      <Groups />
      <Bans />
      <PartitionsSection />
    </div>
  );
}
