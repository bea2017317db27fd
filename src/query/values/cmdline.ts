/**
 * Command lines (reference §5.5, Carbon Black's 6.3+ tokenizer), lower-cased:
 * - `\ " ' ( ) [ ] { } , = < > & | ;` (and curly quotes) separate tokens like whitespace;
 * - `/` separates too; a word that starts with `/` is a switch (`/d`), except the very first word
 *   of the command line, which is the program's path (`/bin/ls /tmp/x` → bin, ls, /tmp, x);
 * - a single trailing `:` stays (drive letters `c:`); other colons separate;
 * - `word.exe` also yields `.exe` at the same position, so `cmdline:.dll` works.
 *
 * The index stores cmdlineTokens(cmdline) with their positions; a query is a run of tokens at
 * consecutive positions (cmdlineQueryTokens). A query has no "first word": its leading `/` is a
 * switch, which is how the doc's `cmdline:/d` is meant.
 */
import { normalizeKeyword } from './keyword.js';

export interface PositionedToken {
  readonly text: string;
  readonly position: number;
}

const SEPARATORS = /[\\"'()[\]{},=<>&|;\u201C\u201D\u2018\u2019\s]+/u;

export function cmdlineTokens(cmdline: string): PositionedToken[] {
  const tokens: PositionedToken[] = [];
  words(cmdline, true).forEach((text, position) => {
    tokens.push({ text, position });
    const dot = text.lastIndexOf('.');
    if (dot >= 1 && dot < text.length - 1) tokens.push({ text: text.slice(dot), position });
  });
  return tokens;
}

/**
 * The distinct words of a command line without their extension tokens, which the term index
 * leaves out: an extension token is the end of a word (`.exe` of `rundll32.exe`), so a search for
 * it finds the words that end in it (isExtensionToken).
 */
export function cmdlineWords(cmdline: string): Set<string> {
  return new Set(words(cmdline, true));
}

/** A query token that stands for the extension of other words: a dot, then no other dot. */
export function isExtensionToken(token: string): boolean {
  return token.length > 1 && token.startsWith('.') && !token.includes('.', 1);
}

/** Query side: one token per position; `*` and `?` pass through as wildcards. */
export function cmdlineQueryTokens(value: string): string[] {
  return words(value, false);
}

/** Written as loops: the ingest path tokenizes every process's command line. */
function words(text: string, firstIsPath: boolean): string[] {
  const out: string[] = [];
  let index = 0;
  for (const word of normalizeKeyword(text).split(SEPARATORS)) {
    if (word === '') continue;
    const isSwitch = word.charCodeAt(0) === SLASH && !(firstIsPath && index === 0);
    index++;
    if (!word.includes('/') && !word.includes(':')) {
      out.push(word);
      continue;
    }
    const pieces = word.split('/').filter(Boolean);
    if (isSwitch && pieces.length > 0) pieces[0] = `/${pieces[0]}`;
    for (const piece of pieces) splitColons(piece, out);
  }
  return out;
}

const SLASH = 0x2f;

function splitColons(piece: string, out: string[]): void {
  let end = piece.length;
  while (end > 0 && piece.charCodeAt(end - 1) === COLON) end--;
  const parts = piece.slice(0, end).split(':').filter(Boolean);
  if (piece.length - end === 1 && parts.length > 0) parts[parts.length - 1] += ':';
  out.push(...parts);
}

const COLON = 0x3a;
