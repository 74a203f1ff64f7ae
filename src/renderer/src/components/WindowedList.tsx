import { type JSX, type ReactNode, useEffect, useState } from 'react';

/**
 * A tiny virtualised list: only the rows in view (plus a few) are in the DOM. Rows have a
 * fixed height. The scroll area is focusable so it scrolls with the keyboard. The row at
 * `keep` (the one with keyboard focus) stays in the DOM wherever the list is scrolled, so
 * focus is never dropped to the page while the list catches up with a jump.
 * `onRange` hears which rows are in the DOM, so a caller holding only pages of a long
 * list (the problems of a 200,000-row dataset) can fetch the missing ones.
 */
export function WindowedList<T>({
  items,
  rowHeight = 40,
  height = 320,
  overscan = 6,
  label,
  renderRow,
  rowKey,
  keep,
  onRange,
}: {
  items: readonly T[];
  rowHeight?: number;
  height?: number;
  overscan?: number;
  label: string;
  renderRow: (item: T, index: number) => ReactNode;
  rowKey: (item: T, index: number) => string | number;
  keep?: number;
  onRange?: (first: number, last: number) => void;
}): JSX.Element {
  const [scrollTop, setScrollTop] = useState(0);
  const viewHeight = Math.min(height, items.length * rowHeight);
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((scrollTop + viewHeight) / rowHeight) + overscan);
  useEffect(() => {
    onRange?.(first, last);
  }, [first, last, onRange]);
  const indices = [...Array(Math.max(0, last - first)).keys()].map((i) => first + i);
  if (keep !== undefined && keep >= 0 && keep < items.length && (keep < first || keep >= last)) indices.push(keep);
  return (
    <div
      className="windowed"
      style={{ height: viewHeight, overflowY: 'auto', position: 'relative' }}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
      tabIndex={0}
      role="region"
      aria-label={`${label} (${items.length} rows, scrollable)`}
    >
      <ul style={{ height: items.length * rowHeight, position: 'relative', margin: 0, padding: 0, listStyle: 'none' }} aria-label={label}>
        {indices.map((index) => {
          const item = items[index]!;
          return (
            <li
              key={rowKey(item, index)}
              aria-setsize={items.length}
              aria-posinset={index + 1}
              className="windowed-row"
              style={{ position: 'absolute', top: index * rowHeight, height: rowHeight, left: 0, right: 0 }}
            >
              {renderRow(item, index)}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
