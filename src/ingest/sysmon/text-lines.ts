/**
 * The non-blank lines of a UTF-8 body, each trimmed, with its 1-based line number, read from the
 * bytes line by line. Decoding the whole body first would make one string of it, and a single
 * non-ASCII character (the "Microsoft® Windows®" of Sysmon's Product field is in most batches)
 * makes that string two bytes a character and its decoding several times slower; decoded a line
 * at a time, only the lines that hold one pay for it. A newline byte is never part of a
 * multi-byte character, so the lines are the same as the decoded text's.
 */
const NEWLINE = 0x0a;

export function* textLines(bytes: Buffer): Generator<{ line: number; content: string }> {
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.length;
    line++;
    const content = bytes.toString('utf8', start, end).trim();
    start = end + 1;
    if (content !== '') yield { line, content };
  }
}
