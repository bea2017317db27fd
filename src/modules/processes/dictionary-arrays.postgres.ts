/**
 * A wildcard over command-line words compiles to `p.cmdline_words && ARRAY(SELECT value FROM
 * event_terms WHERE …)`. PostgreSQL plans that array as an unknown InitPlan value and scans every
 * process rather than using the words' GIN index (`cmdline:*update*` on the 2M dataset: 18,732
 * heap blocks, 540 ms). Reading each such array first and binding it as a value lets the planner
 * size the lookup, as process search already does for a one-field event condition (ADR 0019).
 */
import type { SqlExecutor, SqlValue } from '../../db/database.js';
import { closingQuote } from '../../db/dialects/sql-placeholders.js';

const DICTIONARY_ARRAY = 'ARRAY(SELECT value FROM event_terms WHERE ';

/** The condition with each dictionary array replaced by its value, read in the caller's snapshot. */
export async function bindDictionaryArrays(
  tx: SqlExecutor, where: string, params: readonly SqlValue[],
): Promise<{ where: string; params: SqlValue[] }> {
  let text = where;
  const values = [...params];
  for (let found = nextArray(text); found; found = nextArray(text)) {
    const subquery = text.slice(found.start, found.end);
    const inside = values.slice(found.placeholdersBefore, found.placeholdersBefore + found.placeholdersInside);
    const row = await tx.get<{ words: string }>(`SELECT (${subquery})::text AS words`, inside);
    text = `${text.slice(0, found.start)}?::text[]${text.slice(found.end)}`;
    values.splice(found.placeholdersBefore, found.placeholdersInside, row!.words);
  }
  return { where: text, params: values };
}

interface FoundArray { start: number; end: number; placeholdersBefore: number; placeholdersInside: number }

/** The first dictionary array outside quotes: where it starts and ends, and the `?` before and in it. */
function nextArray(sql: string): FoundArray | undefined {
  let placeholders = 0;
  let open: { start: number; placeholders: number; depth: number } | undefined;
  let depth = 0;
  for (let i = 0; i < sql.length; i += 1) {
    const char = sql[i]!;
    if (char === "'" || char === '"') {
      i = closingQuote(sql, i, char);
    } else if (char === '?') {
      placeholders += 1;
    } else if (char === '(') {
      if (!open && sql.startsWith(DICTIONARY_ARRAY, i - 'ARRAY'.length)) open = { start: i - 'ARRAY'.length, placeholders, depth };
      depth += 1;
    } else if (char === ')') {
      depth -= 1;
      if (open && depth === open.depth) {
        return { start: open.start, end: i + 1, placeholdersBefore: open.placeholders, placeholdersInside: placeholders - open.placeholders };
      }
    }
  }
  return undefined;
}
