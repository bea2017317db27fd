/**
 * The process tree: the ancestors down to this process, then its children, each child
 * expandable to its own children, fetched only when opened.
 */
import { useState } from 'preact/hooks';
import { get } from '../api.js';
import { href } from '../router.js';
import { useLoad } from '../use-load.js';

export interface Related {
  unique_id: string;
  process_name: string;
  process_pid: number;
  terminated?: boolean;
}

export interface Summary {
  id: string;
  unique_id: string;
  process_name: string;
  process_pid: number;
  parent_id: string;
  hostname: string;
  sensor_id: number;
  username: string;
  cmdline: string;
  path: string;
  process_md5: string;
  start: string;
  last_update: string;
  group: string;
  parent: Partial<Summary>;
  children: Related[];
}

const ANCESTOR_LIMIT = 8;

/** A unique id is the process id and a segment: the id is its first 36 characters. */
export const processIdOf = (uniqueId: string) => uniqueId.slice(0, 36);

export const summaryOf = (id: string) => get<Summary>(`/api/v2/process/${encodeURIComponent(id)}/0`, { children: 100 });

async function ancestors(process: Summary): Promise<Partial<Summary>[]> {
  const chain: Partial<Summary>[] = [];
  let next: Partial<Summary> = process.parent;
  while (next.id && chain.length < ANCESTOR_LIMIT) {
    chain.unshift(next);
    try {
      next = (await summaryOf(next.id)).parent;
    } catch {
      break;
    }
  }
  return chain;
}

export function ProcessTree({ process }: { process: Summary }) {
  const chain = useLoad(process.id, () => ancestors(process));
  return (
    <section aria-labelledby="tree-heading">
      <h2 id="tree-heading">Process tree</h2>
      <ul class="tree" aria-labelledby="tree-heading">
        {(chain.data ?? []).map((a) => (
          <li key={a.id}><a href={href(['process', a.id ?? '', '0'])}>{a.process_name}</a> <span class="muted">pid {a.process_pid}</span></li>
        ))}
        <li class="tree-self">
          <strong>{process.process_name}</strong> <span class="muted">pid {process.process_pid}</span>
          <Children list={process.children} />
        </li>
      </ul>
    </section>
  );
}

function Children({ list }: { list: Related[] }) {
  if (list.length === 0) return null;
  return <ul>{list.map((child) => <ChildNode key={child.unique_id} child={child} />)}</ul>;
}

function ChildNode({ child }: { child: Related }) {
  const [open, setOpen] = useState(false);
  const id = processIdOf(child.unique_id);
  return (
    <li>
      <button type="button" class="expander" aria-expanded={open} aria-label={`${open ? 'Collapse' : 'Expand'} ${child.process_name}`} onClick={() => setOpen(!open)}>{open ? '▾' : '▸'}</button>
      <a href={href(['process', id, '0'])}>{child.process_name}</a> <span class="muted">pid {child.process_pid}</span>
      {open && <LazyChildren id={id} />}
    </li>
  );
}

function LazyChildren({ id }: { id: string }) {
  const loaded = useLoad(id, () => summaryOf(id));
  if (loaded.error) return <p class="error">Could not load the children.</p>;
  if (!loaded.data) return <p class="muted">Loading…</p>;
  return loaded.data.children.length ? <Children list={loaded.data.children} /> : <p class="muted">No children</p>;
}
