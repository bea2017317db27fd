/**
 * A query input with field-name completion (a datalist of the query with its last word
 * completed) and, when the server refused the query, its message with a caret at the position.
 */
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { completions } from './fields.js';

interface Props {
  id: string;
  label: string;
  value: string;
  fields: readonly string[];
  error: unknown;
  onSubmit: (query: string) => void;
}

export function QueryBox({ id, label, value, fields, error, onSubmit }: Props) {
  const [text, setText] = useState(value);
  const [shown, setShown] = useState(value);
  // A new query from outside (a facet click, the back button) replaces what was typed.
  if (value !== shown) {
    setShown(value);
    setText(value);
  }
  const offered = completions(text, fields);
  return (
    <form class="query" role="search" onSubmit={(e) => { e.preventDefault(); onSubmit(text.trim()); }}>
      <label for={id}>{label}</label>
      <input
        id={id} name="q" type="search" list={`${id}-fields`} autoComplete="off" spellcheck={false}
        aria-describedby={error ? `${id}-error` : undefined} aria-invalid={error ? true : undefined}
        value={text} onInput={(e) => setText(e.currentTarget.value)}
      />
      <datalist id={`${id}-fields`}>{offered.map((o) => <option key={o} value={o} />)}</datalist>
      <button type="submit">Search</button>
      {error !== undefined && error !== null && <QueryError id={`${id}-error`} query={value} error={error} />}
    </form>
  );
}

function QueryError({ id, query, error }: { id: string; query: string; error: unknown }) {
  const message = error instanceof Error ? error.message : 'The search failed.';
  const position = error instanceof ApiError ? error.position : undefined;
  return (
    <div id={id} role="alert" class="error">
      <p>{message}</p>
      {position !== undefined && (
        <pre class="caret" aria-label={`error at position ${position}`}>
          {query}
          {'\n'}
          {' '.repeat(position)}^
        </pre>
      )}
    </div>
  );
}
