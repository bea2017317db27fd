/**
 * The query language as a pure pipeline (no driver, no web framework):
 * text → tokenize → parseQuery → analyze (with the field catalog) → predicates for a compiler;
 * serialize turns a tree back into canonical text. values/ holds the per-type helpers an index
 * writer shares with the matcher so both sides normalize alike.
 */
export type * from './ast.js';
export { withoutSpans } from './ast.js';
export * from './analysis.js';
export { analyze, type AnalyzeOptions } from './analyze.js';
export { QueryError, toDomainError, withQueryErrors, type QueryErrorCode } from './errors.js';
export { defaultFields, FIELDS, resolveField } from './fields.js';
export type { BinaryJoin, DynamicFamily, FieldDef, FieldSource, FieldType, IndexName, ResolvedField } from './fields.js';
export { analyzeParams, queryFromParams, type SearchParams } from './params.js';
export { DEFAULT_LIMITS, parseFieldQuery, parseQuery, type ParseLimits, type ParseOptions } from './parser.js';
export { serialize } from './serialize.js';
export * from './values/cmdline.js';
export * from './values/date.js';
export * from './values/domain.js';
export * from './values/enums.js';
export * from './values/glob.js';
export type { Invalid } from './values/invalid.js';
export * from './values/ip.js';
export * from './values/keyword.js';
export * from './values/number.js';
export * from './values/path.js';
export * from './values/text.js';
