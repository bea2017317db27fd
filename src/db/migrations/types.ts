/** One schema step. Versions only ever grow; a released migration is never edited. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
