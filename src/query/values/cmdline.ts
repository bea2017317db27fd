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
    const extension = /.(\.[^.]+)$/u.exec(text)?.[1];
    if (extension) tokens.push({ text: extension, position });
  });
  return tokens;
}

/** Query side: one token per position; `*` and `?` pass through as wildcards. */
export function cmdlineQueryTokens(value: string): string[] {
  return words(value, false);
}

function words(text: string, firstIsPath: boolean): string[] {
  return normalizeKeyword(text)
    .split(SEPARATORS)
    .filter(Boolean)
    .flatMap((word, index) => {
      const pieces = word.split('/').filter(Boolean);
      const isSwitch = word.startsWith('/') && !(firstIsPath && index === 0);
      if (isSwitch && pieces.length > 0) pieces[0] = `/${pieces[0]}`;
      return pieces.flatMap(splitColons);
    });
}

function splitColons(piece: string): string[] {
  const trailing = /:+$/u.exec(piece)?.[0].length ?? 0;
  const parts = piece.slice(0, piece.length - trailing).split(':').filter(Boolean);
  if (trailing === 1 && parts.length > 0) parts[parts.length - 1] += ':';
  return parts;
}
