/** Facet panels: the top values of each facet; clicking one narrows the query to it. */
import { count } from '../format.js';

export interface FacetEntry {
  name: string;
  value: number;
  percent: number;
}

/** Facet → the query field a click refines, or undefined where the query language has none. */
export const PROCESS_FACETS: readonly { facet: string; label: string; field?: string }[] = [
  { facet: 'process_name', label: 'Process name', field: 'process_name' },
  { facet: 'username_full', label: 'User', field: 'username' },
  { facet: 'hostname', label: 'Host', field: 'hostname' },
  { facet: 'group', label: 'Group', field: 'group' },
  { facet: 'path_full', label: 'Path', field: 'path' },
  { facet: 'parent_name', label: 'Parent', field: 'parent_name' },
  { facet: 'host_type', label: 'Host type', field: 'host_type' },
  { facet: 'hour_of_day', label: 'Hour of day (UTC)' },
  { facet: 'start', label: 'Day' },
];

/** The query with `field:"value"` ANDed on. */
export function refine(query: string, field: string, value: string): string {
  const term = `${field}:"${value.replace(/["\\]/g, '\\$&')}"`;
  return query.trim() ? `${query.trim()} ${term}` : term;
}

interface Props {
  facets: Record<string, FacetEntry[]>;
  onRefine: (field: string, value: string) => void;
}

export function FacetPanels({ facets, onRefine }: Props) {
  return (
    <aside class="facets" aria-label="Facets">
      {PROCESS_FACETS.map(({ facet, label, field }) => {
        const entries = facets[facet] ?? [];
        return (
          <section key={facet} class="facet">
            <h3>{label}</h3>
            {entries.length === 0 ? <p class="muted">none</p> : (
              <ul>
                {entries.slice(0, 10).map((entry) => (
                  <li key={entry.name}>
                    {field
                      ? <button type="button" class="link" onClick={() => onRefine(field, entry.name)}>{entry.name || '(empty)'}</button>
                      : <span>{entry.name}</span>}
                    <span class="facet-count">{count(entry.value)} · {entry.percent}%</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        );
      })}
    </aside>
  );
}
