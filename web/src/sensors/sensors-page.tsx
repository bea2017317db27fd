/**
 * Sensors: status, OS, group, check-in, isolation as the sensor last reported it; isolate, restore, move group.
 * Refreshes every few seconds; the API answers the whole fleet, so only the rows in view are drawn and only
 * those whose sensor changed are redrawn, which keeps a fleet of 10,000 light.
 */
import { useEffect, useState } from 'preact/hooks';
import { get, put } from '../api.js';
import { when } from '../format.js';
import { VirtualTable } from '../lists/virtual-table.js';
import { useLoad } from '../use-load.js';
import { isolationState, type IsolationFacts } from './isolation.js';

const REFRESH_MS = 5000;

interface Sensor extends IsolationFacts {
  id: number;
  computer_name: string;
  os_environment_display_string: string;
  group_id: number;
  last_checkin_time: string;
  num_eventlog_bytes: string;
}

interface Group {
  id: number;
  name: string;
}

export function SensorsPage() {
  const sensors = useLoad('sensors', () => get<Sensor[]>('/api/v1/sensor'));
  const groups = useLoad('groups', () => get<Group[]>('/api/group'));
  const [failure, setFailure] = useState('');
  useEffect(() => {
    const timer = setInterval(sensors.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  const change = (id: number, body: Record<string, unknown>) =>
    put(`/api/v1/sensor/${id}`, body).then(() => { setFailure(''); sensors.reload(); }, (e: unknown) => setFailure(e instanceof Error ? e.message : 'The change failed.'));
  return (
    <div>
      <h1>Sensors</h1>
      {failure && <p role="alert" class="error">{failure}</p>}
      {sensors.error !== undefined && <p role="alert" class="error">Could not load the sensors.</p>}
      <VirtualTable label="Sensors" columns={8} rows={sensors.data ?? []} rowKey={(s) => s.id} deps={[groups.data]}
        head={<tr><th scope="col">Host</th><th scope="col">Status</th><th scope="col">OS</th><th scope="col">Group</th><th scope="col">Last check-in</th><th scope="col">Event bytes</th><th scope="col">Isolation</th><th scope="col">Actions</th></tr>}
        renderRow={(s) => (
          <tr>
            <td>{s.computer_name}</td>
            <td>{s.status}</td>
            <td>{s.os_environment_display_string}</td>
            <td>
              <select aria-label={`Group of ${s.computer_name}`} value={String(s.group_id)} onChange={(e) => void change(s.id, { group_id: Number(e.currentTarget.value) })}>
                {(groups.data ?? []).map((g) => <option key={g.id} value={String(g.id)}>{g.name}</option>)}
              </select>
            </td>
            <td>{when(s.last_checkin_time)}</td>
            <td>{Number(s.num_eventlog_bytes).toLocaleString('en-US')}</td>
            <td class="isolation">{isolationState(s)}</td>
            <td>
              {s.network_isolation_enabled
                ? <button type="button" onClick={() => void change(s.id, { network_isolation_enabled: false })}>Restore {s.computer_name}</button>
                : <button type="button" disabled={!s.supports_isolation} onClick={() => void change(s.id, { network_isolation_enabled: true })}>Isolate {s.computer_name}</button>}
            </td>
          </tr>
        )} />
    </div>
  );
}
