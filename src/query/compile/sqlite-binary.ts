/** Binary fields on SQLite (shared-binary.ts documents them): metadata read with json_extract. */
import { raw, sql, type Fragment } from './fragment.js';
import { BinaryConditionCompiler, type BinaryScope, type MetadataValue } from './shared-binary.js';
import { SQLITE } from './sqlite-shared.js';

export type { BinaryScope } from './shared-binary.js';

export class BinaryConditions extends BinaryConditionCompiler {
  constructor(alias: string, scope: BinaryScope) {
    super(SQLITE, alias, scope);
  }

  protected metadataValue(metadata: string, path: string): MetadataValue {
    const value = `json_extract(${metadata}, '${path}')`;
    return { json: raw(value), text: value, number: value };
  }

  protected flagIs(value: MetadataValue, flag: boolean): Fragment {
    return sql`coalesce(${value.json}, 0) = ${flag ? 1 : 0}`;
  }

  protected textTokens(value: MetadataValue, tokens: readonly string[], wildcard: boolean): Fragment {
    return sql`vigil_tokens(${value.json}, 'text', ${JSON.stringify(tokens)}, ${wildcard ? 1 : 0})`;
  }
}
