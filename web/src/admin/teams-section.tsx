/** Teams and their access per sensor group, changed through the teams API (PUT /api/team/{id}). */
import { useState } from 'preact/hooks';
import { get, put } from '../api.js';
import { useLoad } from '../use-load.js';

type Access = 'Administrator' | 'Viewer' | 'No Access';
interface Team { id: number; name: string; group_access: { group_id: number; group_name: string; access_category: Access }[] }
interface Group { id: number; name: string }

const ACCESS: readonly Access[] = ['Administrator', 'Viewer', 'No Access'];

/** A group the team has no grant on is "No Access", as the API treats it. */
function accessOf(team: Team, groupId: number): Access {
  return team.group_access.find((a) => a.group_id === groupId)?.access_category ?? 'No Access';
}

function TeamRow({ team, groups, onSaved }: { team: Team; groups: Group[]; onSaved: (message: string) => void }) {
  const [chosen, setChosen] = useState<Record<number, Access>>({});
  const pick = (groupId: number) => chosen[groupId] ?? accessOf(team, groupId);
  const save = () => put(`/api/team/${team.id}`, {
    name: team.name,
    group_access: groups.map((g) => ({ group_id: g.id, group_name: g.name, access_category: pick(g.id) })),
  // The choice stays shown until the reload brings the saved access, which starts the row afresh (its key).
  }).then(() => onSaved(`Team ${team.name} saved.`), (e: unknown) => onSaved(e instanceof Error ? e.message : 'The change failed.'));
  return (
    <tr>
      <td>{team.name}</td>
      <td>
        {groups.map((g) => (
          <label key={g.id} class="grant">
            {g.name}{' '}
            <select aria-label={`${team.name}: access to ${g.name}`} value={pick(g.id)}
              onChange={(e) => setChosen({ ...chosen, [g.id]: e.currentTarget.value as Access })}>
              {ACCESS.map((a) => <option key={a}>{a}</option>)}
            </select>
          </label>
        ))}
      </td>
      <td><button type="button" disabled={groups.every((g) => pick(g.id) === accessOf(team, g.id))} onClick={() => void save()}>Save {team.name}</button></td>
    </tr>
  );
}

export function TeamsSection() {
  const teams = useLoad('teams', () => get<Team[]>('/api/teams'));
  const groups = useLoad('team-groups', () => get<Group[]>('/api/group'));
  const [status, setStatus] = useState('');
  const saved = (message: string) => { setStatus(message); teams.reload(); };
  return (
    <section aria-labelledby="teams-heading">
      <h2 id="teams-heading">Teams</h2>
      {status && <p role="status">{status}</p>}
      <table class="results">
        <thead><tr><th scope="col">Team</th><th scope="col">Access per sensor group</th><th scope="col">Change</th></tr></thead>
        <tbody>{(teams.data ?? []).map((t) => (
          // Keyed by what the server holds, so a reload after a save starts the row afresh.
          <TeamRow key={`${t.id}:${JSON.stringify(t.group_access)}`} team={t} groups={groups.data ?? []} onSaved={saved} />
        ))}</tbody>
      </table>
    </section>
  );
}
