/** Compiled SQL with its parameters written in place, for golden cases a reader can check by eye. */
import type { SqlParam } from './fragment.js';

export function inlineParams(compiled: { readonly sql: string; readonly params: readonly SqlParam[] }): string {
  let next = 0;
  return compiled.sql.replace(/\?/gu, () => literal(compiled.params[next++]!));
}

function literal(value: SqlParam): string {
  if (typeof value === 'string') return `'${value.replace(/'/gu, "''")}'`;
  return typeof value === 'bigint' ? `${value}n` : String(value);
}
