/**
 * Text fields (reference §5.2): split on whitespace and punctuation, lower-cased, so
 * "Microsoft Visual Studio 2010" is microsoft, visual, studio, 2010. The index stores
 * textTokens(value) in order; a query matches a run of consecutive tokens.
 */
import { normalizeKeyword } from './keyword.js';

export function textTokens(text: string): string[] {
  return normalizeKeyword(text).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** Query side: as textTokens, but `*` and `?` stay inside tokens as wildcards. */
export function textQueryTokens(text: string, wildcards: boolean): string[] {
  if (!wildcards) return textTokens(text);
  return normalizeKeyword(text).split(/[^\p{L}\p{N}*?]+/u).filter(Boolean);
}
