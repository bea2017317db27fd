/**
 * Event terms by id. The vocabulary of event values is small next to the event stream (a fleet
 * loads the same DLLs, talks to the same domains), so ids are cached in memory and a term costs
 * the writer a map lookup; only a value never seen before touches the table.
 *
 * The cache is bounded (term-generations.ts): terms in use stay, the tail of the vocabulary goes.
 */
import type Database from 'better-sqlite3';
import { TermGenerations } from './term-generations.js';

export class TermDictionary {
  private readonly ids: TermGenerations<number>;
  private readonly find: Database.Statement;
  private readonly insert: Database.Statement;

  constructor(connection: Database.Database, maxEntries: number) {
    this.ids = new TermGenerations(maxEntries);
    this.find = connection.prepare('SELECT id FROM event_terms WHERE field = ? AND value = ?').pluck();
    this.insert = connection.prepare('INSERT INTO event_terms (field, value) VALUES (?, ?) RETURNING id').pluck();
  }

  /** The term's id, created if new. Call inside the writer's transaction. */
  id(field: string, value: string): number {
    const cached = this.ids.get(field, value);
    if (cached !== undefined) return cached;
    const id = (this.find.get(field, value) ?? this.insert.get(field, value)) as number;
    this.ids.set(field, value, id);
    return id;
  }

  /** Terms whose ids are in memory; never more than the bound. */
  get size(): number {
    return this.ids.size;
  }

  /** Forgets cached ids: after a rollback some may name rows that no longer exist. */
  reset(): void {
    this.ids.clear();
  }
}
