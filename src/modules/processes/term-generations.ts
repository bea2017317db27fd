/**
 * A bounded map of event terms (field, value) for the event stores' writers. The tail of the
 * vocabulary (temporary file names, one-off command lines, addresses) grows without end over weeks
 * of data, so the map holds two generations of at most half the bound each (config
 * ingestTermCacheEntries, docs/adr/0030-cache-bounds.md): a term is looked up in the current one,
 * then in the previous one (and brought forward); when the current one is full it becomes the
 * previous one and the oldest is dropped. Terms in use stay; a lookup costs no reordering, unlike
 * an LRU list's, and no `field:value` string is built to look a term up.
 */
type Generation<V> = Map<string, Map<string, V>>;

export class TermGenerations<V> {
  private current: Generation<V> = new Map();
  private previous: Generation<V> = new Map();
  private currentSize = 0;
  private previousSize = 0;
  private readonly generationSize: number;

  constructor(maxEntries: number) {
    this.generationSize = Math.max(1, Math.floor(maxEntries / 2));
  }

  get(field: string, value: string): V | undefined {
    const cached = this.current.get(field)?.get(value);
    if (cached !== undefined) return cached;
    const older = this.previous.get(field)?.get(value);
    if (older !== undefined) this.set(field, value, older);
    return older;
  }

  set(field: string, value: string, entry: V): void {
    if (this.currentSize >= this.generationSize) {
      this.previous = this.current;
      this.previousSize = this.currentSize;
      this.current = new Map();
      this.currentSize = 0;
    }
    let values = this.current.get(field);
    if (!values) this.current.set(field, (values = new Map()));
    values.set(value, entry);
    this.currentSize++;
  }

  /** Terms in memory; never more than the bound. */
  get size(): number {
    return this.currentSize + this.previousSize;
  }

  clear(): void {
    this.current = new Map();
    this.previous = new Map();
    this.currentSize = this.previousSize = 0;
  }
}
