/**
 * An Elasticsearch `_bulk` body read as its items: NDJSON action lines (`index`, `create`,
 * `update`, `delete`), each but `delete` followed by its document line. A line that cannot be
 * read is one item refused with a reason, never the whole body: the next line is taken as the
 * next action, as the pairing of the rest cannot be known.
 */
import { textLines } from './text-lines.js';

export type BulkAction = 'index' | 'create' | 'update' | 'delete';

export interface BulkItemHead {
  action: BulkAction;
  index: string | undefined;
  id: string | undefined;
  /** 1-based line of the action. */
  line: number;
}

/**
 * An item with its document, or with why there is none to take. The head is apart so that the
 * reply can keep it without keeping the document alive until the events are committed.
 */
export type BulkItem = { head: BulkItemHead } & ({ document: Record<string, unknown> } | { refused: string });

const ACTIONS: ReadonlySet<string> = new Set(['index', 'create', 'update', 'delete']);

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The body's items, read from its bytes (UTF-8, decompressed). */
export function* bulkItems(body: Buffer): Generator<BulkItem> {
  const lines = textLines(body);
  const next = () => {
    const line = lines.next();
    return line.done === true ? undefined : line.value;
  };
  // Shippers repeat one action line for a whole body: read once, it stands for the ones like it.
  let lastAction: { content: string; action: Omit<BulkItemHead, 'line'> | undefined } | undefined;
  for (let actionLine = next(); actionLine !== undefined; actionLine = next()) {
    if (lastAction?.content !== actionLine.content) lastAction = { content: actionLine.content, action: readAction(actionLine.content) };
    if (lastAction.action === undefined) {
      yield { head: { action: 'index', index: undefined, id: undefined, line: actionLine.line }, refused: 'not an action line ({"index":{…}}, {"create":{…}}, …)' };
      continue;
    }
    const head: BulkItemHead = { ...lastAction.action, line: actionLine.line };
    const name = head.action;
    if (name === 'delete') {
      yield { head, refused: 'Vigil keeps events as they happened: nothing is deleted' };
      continue;
    }
    const documentLine = next();
    const document = documentLine === undefined ? undefined : parse(documentLine.content);
    if (documentLine === undefined) yield { head, refused: 'the action has no document line' };
    else if (!isObject(document)) yield { head, refused: 'the document line is not a JSON object' };
    else if (name === 'update') yield { head, refused: 'Vigil keeps events as they happened: nothing is updated' };
    else yield { head, document };
  }
}

function readAction(content: string): Omit<BulkItemHead, 'line'> | undefined {
  const parsed = parse(content);
  const [name, meta] = isObject(parsed) && Object.keys(parsed).length === 1 ? Object.entries(parsed)[0]! : [undefined, undefined];
  if (name === undefined || !ACTIONS.has(name) || !isObject(meta)) return undefined;
  return {
    action: name as BulkAction,
    index: typeof meta._index === 'string' ? meta._index : undefined,
    id: typeof meta._id === 'string' ? meta._id : undefined,
  };
}
