/** The four time limits of a process search: last update on the sensor's clock and on the server's. */
export const TIME_FILTERS = [
  { param: 'cb.min_last_update', label: 'Updated after (sensor clock)' },
  { param: 'cb.max_last_update', label: 'Updated before (sensor clock)' },
  { param: 'cb.min_last_server_update', label: 'Updated after (server clock)' },
  { param: 'cb.max_last_server_update', label: 'Updated before (server clock)' },
] as const;

interface Props {
  values: URLSearchParams;
  onChange: (param: string, value: string) => void;
}

/** datetime-local speaks local time without a zone; the console means UTC, as the API's times are. */
const toInput = (iso: string | null) => (iso ? iso.replace(/Z$/, '').slice(0, 16) : '');
const fromInput = (local: string) => (local ? `${local}:00Z` : '');

export function TimeFilters({ values, onChange }: Props) {
  return (
    <fieldset class="time-filters">
      <legend>Time (UTC)</legend>
      {TIME_FILTERS.map(({ param, label }) => (
        <label key={param}>
          {label}
          <input type="datetime-local" value={toInput(values.get(param))} onChange={(e) => onChange(param, fromInput(e.currentTarget.value))} />
        </label>
      ))}
    </fieldset>
  );
}
