/**
 * Path fields (reference §5.4: path, filemod, modload, regmod, observed_filename) are indexed by
 * hierarchy: `c:\windows\system32\boot\winload.exe` is found by itself and by every trailing
 * sub-path that starts after a separator (`boot\winload.exe`, `winload.exe`).
 *
 * Normal form, shared by index and query: lower case, `/` read as `\`, repeated separators
 * collapsed, no leading or trailing separator (the doc: search `boot\winload.exe`, not
 * `\boot\winload.exe`). Registry paths also fold `controlset001`/`002`… into `currentcontrolset`,
 * as Carbon Black does at index time, so the 5.1 doc's `controlset001` examples still match.
 */
import { normalizeKeyword } from './keyword.js';

export const PATH_SEPARATOR = '\\';

/** Already in normal form: lower-case ASCII, `\` separators only, none doubled, leading or trailing. */
const NEEDS_WORK = /[/A-Z]|[^\0-\x7F]|\\\\|^\\|\\$/u;

export function normalizePath(path: string, options: { registry?: boolean } = {}): string {
  // Event paths reach the index lower-cased already; most need nothing more, and this runs per event.
  if (!NEEDS_WORK.test(path) && !(options.registry && path.includes('controlset'))) return path;
  const segments = normalizeKeyword(path).split(/[\\/]+/u).filter(Boolean);
  return (options.registry ? segments.map((s) => (/^controlset\d{3}$/u.test(s) ? 'currentcontrolset' : s)) : segments)
    .join(PATH_SEPARATOR);
}

/** Every value a path is found by: the whole normalized path and each trailing sub-path. */
export function pathSubPaths(normalized: string): string[] {
  const segments = normalized.split(PATH_SEPARATOR).filter(Boolean);
  return segments.map((_, i) => segments.slice(i).join(PATH_SEPARATOR));
}

/** Whether a normalized path is found by a normalized sub-path query. */
export function matchesSubPath(normalized: string, query: string): boolean {
  return normalized === query || normalized.endsWith(PATH_SEPARATOR + query);
}
