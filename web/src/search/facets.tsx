/** Facet panels: the top values of each facet; clicking one narrows the query to it. */
import { count } from '../format.js';

export interface FacetEntry {
  name: string;
  value: number;
  percent: number;
}

/** `field:"value"`, quoted so spaces and backslashes stay part of the value. */
export const fieldTerm = (field: string) => (value: string) => `${field}:"${value.replace(/["\\]/g, '\\$&')}"`;

/** A day facet's entry ("2026-11-20T00:00:00Z") as a range over that day's process starts. */
function dayTerm(value: string): string {
  const day = value.slice(0, 10);
  return `start:[${day}T00:00:00 TO ${day}T23:59:59]`;
}

/** A facet panel: the facet's name, its heading, and the query term a click on one of its entries adds. */
export interface FacetPanel {
  facet: string;
  label: string;
  /** None where the query language has no such term (hour of day). */
  term?: (value: string) => string;
}

export const PROCESS_FACETS: readonly FacetPanel[] = [
  { facet: 'process_name', label: 'Process name', term: fieldTerm('process_name') },
  { facet: 'username_full', label: 'User', term: fieldTerm('username') },
  { facet: 'hostname', label: 'Host', term: fieldTerm('hostname') },
  { facet: 'group', label: 'Group', term: fieldTerm('group') },
  { facet: 'path_full', label: 'Path', term: fieldTerm('path') },
  { facet: 'parent_name', label: 'Parent', term: fieldTerm('parent_name') },
  { facet: 'host_type', label: 'Host type', term: fieldTerm('host_type') },
  { facet: 'hour_of_day', label: 'Hour of day (UTC)' },
  { facet: 'start', label: 'Day', term: dayTerm },
];

/** The query with `term` ANDed on. */
export function refine(query: string, term: string): string {
  return query.trim() ? `${query.trim()} ${term}` : term;
}

interface Props {
  facets: Record<string, FacetEntry[]>;
  panels?: readonly FacetPanel[];
  onRefine: (term: string) => void;
}

export function FacetPanels({ facets, panels = PROCESS_FACETS, onRefine }: Props) {
  return (
    <aside class="facets" aria-label="Facets">
      {panels.map(({ facet, label, term }) => {
        const entries = facets[facet] ?? [];
        return (
          <section key={facet} class="facet">
            <h3>{label}</h3>
            {entries.length === 0 ? <p class="muted">none</p> : (
              <ul>
                {entries.slice(0, 10).map((entry) => (
                  <li key={entry.name}>
                    {term && entry.name
                      ? <button type="button" class="link" onClick={() => onRefine(term(entry.name))}>{entry.name}</button>
                      : <span>{entry.name || '(empty)'}</span>}
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
