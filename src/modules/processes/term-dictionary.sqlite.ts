/**
 * Event terms by id. The vocabulary of event values is small next to the event stream (a fleet
 * loads the same DLLs, talks to the same domains), so ids are cached in memory and a term costs
 * the writer a map lookup; only a value never seen before touches the table.
 */
import type Database from 'better-sqlite3';

export class TermDictionary {
  private readonly ids = new Map<string, Map<string, number>>();
  private readonly find: Database.Statement;
  private readonly insert: Database.Statement;

  constructor(connection: Database.Database) {
    this.find = connection.prepare('SELECT id FROM event_terms WHERE field = ? AND value = ?').pluck();
    this.insert = connection.prepare('INSERT INTO event_terms (field, value) VALUES (?, ?) RETURNING id').pluck();
  }

  /** The term's id, created if new. Call inside the writer's transaction. */
  id(field: string, value: string): number {
    let values = this.ids.get(field);
    if (!values) this.ids.set(field, (values = new Map()));
    let id = values.get(value);
    if (id === undefined) {
      id = ((this.find.get(field, value) ?? this.insert.get(field, value)) as number);
      values.set(value, id);
    }
    return id;
  }

  /** Forgets cached ids: after a rollback some may name rows that no longer exist. */
  reset(): void {
    this.ids.clear();
  }
}
