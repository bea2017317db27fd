/**
 * The narrow SQL interface every store is written against. Each dialect (db/dialects/) implements
 * it; stores use `?` placeholders and the SQL both SQLite and PostgreSQL accept (RETURNING,
 * standard joins), and leave placeholder style, booleans and driver errors to the dialect.
 */
export type SqlValue = string | number | bigint | boolean | null | Buffer;

/** A WHERE clause a dialect compiled, with its bound values in placeholder order. */
export interface SqlCondition {
  sql: string;
  params: SqlValue[];
}

export interface RunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

export interface SqlExecutor {
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<RunResult>;
}

export interface SqlDatabase extends SqlExecutor {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws.
   * Transactions are serialized; `work` must do its SQL through the executor it is given (a write
   * on the database itself waits for the transaction to end: from inside `work`, forever).
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /** Runs a script of several statements (migrations). */
  exec(script: string): Promise<void>;
  /** Commits what is pending and releases the database. */
  close(): Promise<void>;
}
