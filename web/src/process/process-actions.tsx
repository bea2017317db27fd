/** What an analyst does about a process: ban its hash, isolate its host, open a live response session there. */
import { useState } from 'preact/hooks';
import { post, put } from '../api.js';
import { href, navigate } from '../router.js';
import type { Summary } from './process-tree.js';

interface Outcome {
  ok: boolean;
  text: string;
}

export function ProcessActions({ process }: { process: Summary }) {
  const [outcome, setOutcome] = useState<Outcome>();
  const [busy, setBusy] = useState(false);
  const act = async (work: () => Promise<string>) => {
    setBusy(true);
    try {
      setOutcome({ ok: true, text: await work() });
    } catch (error) {
      setOutcome({ ok: false, text: error instanceof Error ? error.message : 'The action failed.' });
    } finally {
      setBusy(false);
    }
  };
  const ban = () => act(async () => {
    await post('/api/v1/banning/blacklist', { md5hash: process.process_md5, text: `Banned from the console: ${process.process_name} on ${process.hostname}` });
    return `Banned ${process.process_md5}: sensors will block it from their next check-in.`;
  });
  const isolate = () => act(async () => {
    await put(`/api/v1/sensor/${process.sensor_id}`, { network_isolation_enabled: true });
    return `Isolation of ${process.hostname} requested: see Sensors for when the sensor confirms it.`;
  });
  const liveResponse = () => act(async () => {
    const session = await post<{ id: number }>('/api/v1/cblr/session', { sensor_id: process.sensor_id });
    navigate(href(['live', String(session.id)]));
    return `Live response session ${session.id} opened.`;
  });
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      <div class="actions">
        <button type="button" disabled={busy} onClick={() => void ban()}>Ban this hash</button>
        <button type="button" disabled={busy} onClick={() => void isolate()}>Isolate this host</button>
        <button type="button" disabled={busy} onClick={() => void liveResponse()}>Open live response</button>
      </div>
      {outcome && <p role="status" class={outcome.ok ? 'ok' : 'error'}>{outcome.text}</p>}
    </section>
  );
}
