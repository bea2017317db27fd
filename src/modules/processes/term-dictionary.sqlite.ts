/**
 * Event terms by id. The vocabulary of event values is small next to the event stream (a fleet
 * loads the same DLLs, talks to the same domains), so ids are cached in memory and a term costs
 * the writer a map lookup; only a value never seen before touches the table.
 *
 * The cache is bounded (config ingestTermCacheEntries, docs/adr/0030-cache-bounds.md): the tail of
 * the vocabulary (temporary file names, one-off command lines, addresses) grows without end over
 * weeks of data. It holds two generations of at most half the bound each: a term is looked up in
 * the current one, then in the previous one (and brought forward); when the current one is full
 * it becomes the previous one and the oldest is dropped. Terms in use stay; a lookup costs no
 * reordering, unlike an LRU list's.
 */
import type Database from 'better-sqlite3';

type Generation = Map<string, Map<string, number>>;

export class TermDictionary {
  private current: Generation = new Map();
  private previous: Generation = new Map();
  private currentSize = 0;
  private previousSize = 0;
  private readonly generationSize: number;
  private readonly find: Database.Statement;
  private readonly insert: Database.Statement;

  constructor(connection: Database.Database, maxEntries: number) {
    this.generationSize = Math.max(1, Math.floor(maxEntries / 2));
    this.find = connection.prepare('SELECT id FROM event_terms WHERE field = ? AND value = ?').pluck();
    this.insert = connection.prepare('INSERT INTO event_terms (field, value) VALUES (?, ?) RETURNING id').pluck();
  }

  /** The term's id, created if new. Call inside the writer's transaction. */
  id(field: string, value: string): number {
    const cached = this.current.get(field)?.get(value);
    if (cached !== undefined) return cached;
    const id = this.previous.get(field)?.get(value) ?? ((this.find.get(field, value) ?? this.insert.get(field, value)) as number);
    this.remember(field, value, id);
    return id;
  }

  /** Terms whose ids are in memory; never more than the bound. */
  get size(): number {
    return this.currentSize + this.previousSize;
  }

  /** Forgets cached ids: after a rollback some may name rows that no longer exist. */
  reset(): void {
    this.current = new Map();
    this.previous = new Map();
    this.currentSize = this.previousSize = 0;
  }

  private remember(field: string, value: string, id: number): void {
    if (this.currentSize >= this.generationSize) {
      this.previous = this.current;
      this.previousSize = this.currentSize;
      this.current = new Map();
      this.currentSize = 0;
    }
    let values = this.current.get(field);
    if (!values) this.current.set(field, (values = new Map()));
    values.set(value, id);
    this.currentSize++;
  }
}
