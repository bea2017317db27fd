/**
 * The event timeline, filterable by type and by text. Only the rows in view (and a few beyond)
 * are in the page, so 10,000 events scroll as lightly as 10.
 */
import { useMemo, useState } from 'preact/hooks';
import { useVisibleRange } from '../lists/visible-range.js';
import { EVENT_TYPE_LABELS, EVENT_TYPES, eventText, type EventType, type TimelineEvent } from './events.js';

const ROW_HEIGHT = 28;
const VIEW_HEIGHT = 448;

export function Timeline({ events }: { events: TimelineEvent[] }) {
  const [hidden, setHidden] = useState<ReadonlySet<EventType>>(new Set());
  const [text, setText] = useState('');
  const shown = useMemo(() => {
    const needle = text.trim().toLowerCase();
    return events.filter((e) => !hidden.has(e.type) && (!needle || eventText(e).toLowerCase().includes(needle)));
  }, [events, hidden, text]);
  const { first, last, onScroll } = useVisibleRange(shown.length, ROW_HEIGHT, VIEW_HEIGHT);
  const toggle = (type: EventType) => {
    const next = new Set(hidden);
    if (!next.delete(type)) next.add(type);
    setHidden(next);
  };
  return (
    <section class="timeline" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Events</h2>
      <fieldset class="event-filters">
        <legend>Show</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type}>
            <input type="checkbox" checked={!hidden.has(type)} onChange={() => toggle(type)} /> {EVENT_TYPE_LABELS[type]}
          </label>
        ))}
        <label>Text <input type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} /></label>
      </fieldset>
      <p class="muted" aria-live="polite">{shown.length.toLocaleString('en-US')} of {events.length.toLocaleString('en-US')} events</p>
      <div class="timeline-view" role="list" aria-label="Events" tabIndex={0} style={{ height: `${VIEW_HEIGHT}px` }}
        onScroll={onScroll}>
        <div style={{ height: `${shown.length * ROW_HEIGHT}px`, position: 'relative' }}>
          {shown.slice(first, last).map((event, i) => (
            <div key={first + i} role="listitem" class="event" style={{ top: `${(first + i) * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` }}>
              <span class="event-time">{event.time}</span>
              <span class={`event-type type-${event.type}`}>{EVENT_TYPE_LABELS[event.type]}</span>
              <span class="event-text">{eventText(event)}</span>
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}
