/**
 * A body of JSON lines, one Windows event per line, as records; a line that is no JSON object is
 * refused alone, with its line number. Blank lines (real exports have them) are not events.
 */
export type Line = { line: number; record: Record<string, unknown> } | { line: number; malformed: string };

export function* jsonLines(text: string): Generator<Line> {
  let start = 0;
  let line = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    line++;
    const content = text.slice(start, end).trim();
    start = end + 1;
    if (content === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch (error) {
      yield { line, malformed: `not JSON: ${(error as Error).message}` };
      continue;
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) yield { line, malformed: 'not a JSON object' };
    else yield { line, record: parsed as Record<string, unknown> };
  }
}
