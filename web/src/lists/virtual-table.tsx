/**
 * A results table that holds only the rows in view: the header stays a real table header (sticky),
 * and two hidden spacer rows stand for the rows above and below, so the scroll bar is the whole
 * list's. The row height is measured from the rows drawn (narrow windows stack a row's cells), and
 * a row is redrawn only when its data or what else it shows (`deps`) changed: a refresh of 10,000
 * rows costs a comparison per row in view, not a render.
 */
import { Component, type ComponentChildren, type VNode } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useVisibleRange } from './visible-range.js';

const ESTIMATED_ROW_HEIGHT = 34;
const VIEW_HEIGHT = 480;

interface TableProps<T> {
  label: string;
  head: ComponentChildren;
  columns: number;
  rows: readonly T[];
  rowKey: (row: T) => string | number;
  renderRow: (row: T) => VNode;
  /** Everything besides the row's own data that its rendering reads. */
  deps?: readonly unknown[];
}

export function VirtualTable<T extends object>({ label, head, columns, rows, rowKey, renderRow, deps = [] }: TableProps<T>) {
  const [rowHeight, setRowHeight] = useState(ESTIMATED_ROW_HEIGHT);
  const body = useRef<HTMLTableSectionElement>(null);
  const { first, last, onScroll } = useVisibleRange(rows.length, rowHeight, VIEW_HEIGHT);
  useLayoutEffect(() => {
    const measured = typicalRowHeight(body.current);
    if (measured !== undefined && Math.abs(measured - rowHeight) > 1) setRowHeight(measured);
  });
  const spacer = (height: number) => height > 0 && <tr aria-hidden="true" class="spacer"><td colSpan={columns} style={{ height: `${height}px` }} /></tr>;
  return (
    <div class="virtual-view" role="region" aria-label={label} tabIndex={0} style={{ maxHeight: `${VIEW_HEIGHT}px` }} onScroll={onScroll}>
      <table class="results">
        <thead>{head}</thead>
        <tbody ref={body}>
          {spacer(first * rowHeight)}
          {rows.slice(first, last).map((row) => <Row key={rowKey(row)} row={row} deps={deps} render={renderRow} />)}
          {spacer((rows.length - last) * rowHeight)}
        </tbody>
      </table>
    </div>
  );
}

/** The median height of the rows drawn, so one tall row (an inline editor) does not skew it. */
function typicalRowHeight(body: HTMLTableSectionElement | null): number | undefined {
  const heights = [...(body?.querySelectorAll<HTMLTableRowElement>(':scope > tr:not(.spacer)') ?? [])].map((tr) => tr.getBoundingClientRect().height).sort((a, b) => a - b);
  return heights.length === 0 ? undefined : heights[Math.floor(heights.length / 2)];
}

interface RowProps<T> {
  row: T;
  deps: readonly unknown[];
  render: (row: T) => VNode;
}

class Row<T extends object> extends Component<RowProps<T>> {
  override shouldComponentUpdate(next: RowProps<T>): boolean {
    return !sameFields(this.props.row, next.row) || next.deps.length !== this.props.deps.length || next.deps.some((d, i) => d !== this.props.deps[i]);
  }

  override render() {
    return this.props.render(this.props.row);
  }
}

/** Rows come fresh from JSON on every refresh, so equal means equal fields, not the same object. */
function sameFields(a: object, b: object): boolean {
  if (a === b) return true;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length
    && keys.every((k) => left[k] === right[k] || (typeof left[k] === 'object' && JSON.stringify(left[k]) === JSON.stringify(right[k])));
}
