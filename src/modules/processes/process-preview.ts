/**
 * The preview (reference core §4.7): a few events of each kind, those matching the query first,
 * with every matched substring wrapped in PREPREPRE…POSTPOSTPOST as the real server marked them.
 */
import { analyzeParams, QueryError, toDomainError, type Predicate } from '../../query/index.js';
import type { CompleteLists } from './event-formats/index.js';

/** "10s of events" per the reference; the real sample showed ten of a kind. */
export const PREVIEW_EVENTS_PER_KIND = 10;

const PRE = 'PREPREPRE';
const POST = 'POSTPOSTPOST';

/**
 * The literal texts a query looks for, to be marked wherever they occur; undefined when the query
 * names none. A malformed query is the client's error, as in search.
 */
export function highlighter(q: string | undefined, nowMs: number): RegExp | undefined {
  if (q === undefined || q.trim() === '') return undefined;
  let predicate: Predicate;
  try {
    predicate = analyzeParams({ q }, { index: 'process', now: nowMs }).predicate;
  } catch (error) {
    if (error instanceof QueryError) throw toDomainError(error);
    throw error;
  }
  const texts = [...new Set(literals(predicate))].filter((text) => text.length > 0).sort((a, b) => b.length - a.length);
  if (texts.length === 0) return undefined;
  return new RegExp(texts.map(escapeRegExp).join('|'), 'giu');
}

/** Terms under a NOT are what the process must lack, so nothing in it matches them. */
function literals(predicate: Predicate): string[] {
  switch (predicate.op) {
    case 'and':
    case 'or':
      return predicate.children.flatMap(literals);
    case 'not':
    case 'all':
    case 'none':
      return [];
    case 'field': {
      const { match } = predicate;
      switch (match.kind) {
        case 'exact':
        case 'prefix':
        case 'subpath':
          return [match.value];
        case 'wildcard':
        case 'subpath_wildcard':
          return match.pattern.split(/[*?]/u);
        case 'tokens':
          return match.tokens.flatMap((token) => (match.wildcard ? token.split(/[*?]/u) : [token]));
        case 'domain':
          return [match.labels.join('.')];
        default:
          return [];
      }
    }
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

/** Each list cut to the preview's size, marked entries first, in time order within each part. */
export function previewLists(lists: CompleteLists, marker: RegExp | undefined): CompleteLists {
  const preview: Record<string, unknown[]> = {};
  for (const [key, entries] of Object.entries(lists) as [string, unknown[]][]) {
    const marked = entries.map((entry) => mark(entry, marker));
    const hits = marked.filter((entry, i) => entry !== entries[i]);
    const rest = marked.filter((entry, i) => entry === entries[i]);
    preview[key] = [...hits, ...rest].slice(0, PREVIEW_EVENTS_PER_KIND);
  }
  return preview as CompleteLists;
}

/** The entry with its matches marked; the very same entry when nothing matched. */
function mark<T>(entry: T, marker: RegExp | undefined): T {
  if (!marker) return entry;
  if (typeof entry === 'string') {
    const marked = entry.replace(marker, `${PRE}$&${POST}`);
    return (marked === entry ? entry : marked) as T;
  }
  if (entry && typeof entry === 'object') {
    let changed = false;
    const copy = Object.fromEntries(Object.entries(entry).map(([key, value]) => {
      const marked = mark(value, marker);
      changed ||= marked !== value;
      return [key, marked];
    }));
    return changed ? (copy as T) : entry;
  }
  return entry;
}
