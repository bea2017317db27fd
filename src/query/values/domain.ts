/**
 * Domains (reference §5.6) are split into labels; dots at the ends of a query anchor it:
 *
 *   query        labels must appear           glob equivalent
 *   com          anywhere                     com, *.com, com.*, *.com.*
 *   .com         at the end, after a label    *.com
 *   com.         at the start, before one     com.*
 *   .com.        in the middle                *.com.*
 *   foo.com      at the end                   foo.com, *.foo.com
 *
 * The last row follows the doc's table (foo.com matches foo.com, not foo.com.au) and how people
 * read a domain: `microsoft.com` covers its subdomains.
 */
import { normalizeKeyword } from './keyword.js';

/** Labels allowed on both sides, beyond what DNS allows, for the odd host names sensors see. */
const LABEL = /^[\p{L}\p{N}_-]+$/u;

export type Neighbours = 'none' | 'some' | 'any';

export interface DomainQuery {
  readonly labels: readonly string[];
  /** Whether labels may, must or must not come before the queried ones. */
  readonly before: Neighbours;
  readonly after: Neighbours;
}

export function domainLabels(domain: string): string[] {
  return normalizeKeyword(domain).split('.').filter(Boolean);
}

/** The query's meaning, or a reason it is not a domain. */
export function parseDomainQuery(value: string): DomainQuery | { invalid: string } {
  const text = normalizeKeyword(value);
  const leading = text.startsWith('.');
  const trailing = text.endsWith('.') && text.length > 1;
  const labels = text.slice(leading ? 1 : 0, trailing ? -1 : undefined).split('.');
  if (labels.some((label) => label === '')) return { invalid: 'A domain has no empty labels' };
  if (!labels.every((label) => LABEL.test(label))) return { invalid: 'A domain holds letters, digits, "-" and "_" between dots' };
  if (leading || trailing) return { labels, before: leading ? 'some' : 'none', after: trailing ? 'some' : 'none' };
  return { labels, before: 'any', after: labels.length === 1 ? 'any' : 'none' };
}

export function matchesDomain(domain: string, query: DomainQuery): boolean {
  const labels = domainLabels(domain);
  const fits = (count: number, rule: Neighbours) => (rule === 'any' ? true : rule === 'some' ? count > 0 : count === 0);
  for (let start = 0; start + query.labels.length <= labels.length; start++) {
    const after = labels.length - start - query.labels.length;
    if (fits(start, query.before) && fits(after, query.after) && query.labels.every((label, i) => labels[start + i] === label)) {
      return true;
    }
  }
  return false;
}
