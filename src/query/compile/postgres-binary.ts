/** Binary fields on PostgreSQL (shared-binary.ts documents them): metadata read from its JSON text through jsonb. */
import { raw, sql, type Fragment } from './fragment.js';
import { POSTGRES, textTokensCondition } from './postgres-shared.js';
import { BinaryConditionCompiler, type BinaryScope, type MetadataValue } from './shared-binary.js';

export type { BinaryScope } from './shared-binary.js';

export class PostgresBinaryConditions extends BinaryConditionCompiler {
  constructor(alias: string, scope: BinaryScope) {
    super(POSTGRES, alias, scope);
  }

  protected metadataValue(metadata: string, path: string): MetadataValue {
    // binary-metadata.ts paths are `$.key.key`; the paths are ours, so they may be written inline.
    const keys = path.split('.').slice(1).map((key) => `'${key}'`).join(', ');
    const text = `jsonb_extract_path_text(${metadata}::jsonb, ${keys})`;
    return { json: raw(`jsonb_extract_path(${metadata}::jsonb, ${keys})`), text, number: `(${text})::numeric` };
  }

  protected flagIs(value: MetadataValue, flag: boolean): Fragment {
    return sql`coalesce(${value.json} = 'true'::jsonb, FALSE) = ${raw(flag ? 'TRUE' : 'FALSE')}`;
  }

  protected textTokens(value: MetadataValue, tokens: readonly string[], wildcard: boolean): Fragment {
    return textTokensCondition(value.text, tokens, wildcard);
  }
}

/** SQLite reads JSON booleans as 1 and 0, and the plans spell them out; jsonb's text is already `true` or `false`. */
const SQLITE_BOOLEAN = /CASE (json_extract\(b\.metadata, '[^']+'\)) WHEN 1 THEN 'true' WHEN 0 THEN 'false' END/gu;
const SQLITE_JSON = /json_extract\(b\.metadata, '\$\.([^']+)'\)/gu;

/**
 * A search plan's expression over `b.metadata` (the binary and process facet and sort
 * expressions, written for SQLite's JSON functions) in PostgreSQL's terms.
 */
export function postgresMetadataExpr(expr: string): string {
  return expr.replace(SQLITE_BOOLEAN, '$1').replace(SQLITE_JSON, (_, path: string) => `(b.metadata::jsonb #>> '{${path.split('.').join(',')}}')`);
}
