/** Previous/next through a result set, with the exact total. */
import { count } from '../format.js';

interface Props {
  start: number;
  rows: number;
  total: number;
  onPage: (start: number) => void;
}

export function Pager({ start, rows, total, onPage }: Props) {
  const last = Math.min(start + rows, total);
  return (
    <nav class="pager" aria-label="Result pages">
      <span aria-live="polite">{total === 0 ? 'No results' : `${count(start + 1)}–${count(last)} of ${count(total)}`}</span>
      <button type="button" disabled={start === 0} onClick={() => onPage(Math.max(0, start - rows))}>Previous</button>
      <button type="button" disabled={last >= total} onClick={() => onPage(start + rows)}>Next</button>
    </nav>
  );
}
