/**
 * Pages are addressed in the URL's hash (`#/search?q=…`), so a search or a process can be shared
 * and bookmarked, and the server serves one page for all of them.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** The path's parts: `#/process/<id>/<segment>` → ["process", id, segment]. */
  parts: string[];
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const mark = text.indexOf('?');
  const path = mark < 0 ? text : text.slice(0, mark);
  return {
    parts: path.split('/').filter(Boolean).map(decodeURIComponent),
    params: new URLSearchParams(mark < 0 ? '' : text.slice(mark + 1)),
  };
}

export function href(parts: readonly string[], params: Record<string, string | undefined> = {}): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const query = search.toString();
  return `#/${parts.map(encodeURIComponent).join('/')}${query ? `?${query}` : ''}`;
}

export function navigate(target: string): void {
  window.location.hash = target;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  return route;
}
