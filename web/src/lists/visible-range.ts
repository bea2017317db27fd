/**
 * Which rows of a long list are in view, plus a few beyond so a scroll or a Tab lands on a row
 * already there: the console's lists put only those in the page, so 10,000 rows scroll as lightly as 10.
 */
import { useState } from 'preact/hooks';

const OVERSCAN = 10;

export interface VisibleRange {
  first: number;
  last: number;
  onScroll: (event: { currentTarget: HTMLElement }) => void;
}

export function useVisibleRange(total: number, rowHeight: number, viewHeight: number): VisibleRange {
  const [scrollTop, setScrollTop] = useState(0);
  const first = Math.min(Math.max(0, Math.floor(scrollTop / rowHeight) - OVERSCAN), Math.max(0, total - 1));
  const last = Math.min(total, Math.ceil((scrollTop + viewHeight) / rowHeight) + OVERSCAN);
  return { first, last, onScroll: (event) => setScrollTop(event.currentTarget.scrollTop) };
}
