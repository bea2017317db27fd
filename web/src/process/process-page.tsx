/** Process analysis: what the process is, its tree, its binary, what can be done, and its events. */
import { get } from '../api.js';
import { when } from '../format.js';
import { useLoad } from '../use-load.js';
import { BinaryDetails } from './binary-details.js';
import { timeline, type EventType } from './events.js';
import { ProcessActions } from './process-actions.js';
import { ProcessTree, summaryOf } from './process-tree.js';
import { Timeline } from './timeline.js';

type EventsReply = { process: Partial<Record<`${EventType}_complete`, string[]>> };

export function ProcessPage({ id, segment }: { id: string; segment: string }) {
  const summary = useLoad(id, () => summaryOf(id));
  const events = useLoad(`${id}/${segment}`, () =>
    get<EventsReply>(`/api/v1/process/${encodeURIComponent(id)}/${encodeURIComponent(segment)}/event`).then((r) => timeline(r.process)));
  if (summary.error) return <p role="alert" class="error">{summary.error instanceof Error ? summary.error.message : 'Could not load the process.'}</p>;
  const p = summary.data;
  if (!p) return <p class="muted">Loading…</p>;
  return (
    <div class="process-page">
      <h1>{p.process_name} <span class="muted">on {p.hostname}</span></h1>
      <dl class="facts">
        <dt>Command line</dt><dd class="mono">{p.cmdline}</dd>
        <dt>Path</dt><dd class="mono">{p.path}</dd>
        <dt>User</dt><dd>{p.username}</dd>
        <dt>Started</dt><dd>{when(p.start)}</dd>
        <dt>Last update</dt><dd>{when(p.last_update)}</dd>
        <dt>Group</dt><dd>{p.group}</dd>
      </dl>
      <div class="process-columns">
        <ProcessTree process={p} />
        <BinaryDetails md5={p.process_md5} />
        <ProcessActions process={p} />
      </div>
      {events.data ? <Timeline events={events.data} /> : <p class="muted">{events.error ? 'Could not load the events.' : 'Loading events…'}</p>}
    </div>
  );
}
