/** Wire shapes of binary search (reference core §5.2, §5.3). */
import { Type, type Static } from '@sinclair/typebox';
import { COMMON_SEARCH_PARAMS, FacetEntry, SearchParam } from '../processes/process-search.schemas.js';
import { BinaryDocument } from './binaries.schemas.js';

export const BinarySearchParams = Type.Object(COMMON_SEARCH_PARAMS, {
  additionalProperties: SearchParam,
  description: 'Also cb.q.<field>=<value> and cb.fq.<field>=<value>: terms ANDed with q; repeats of one are ORed',
});

export const BinarySearchReply = Type.Object({
  terms: Type.Array(Type.String(), { description: 'the query\'s terms as parsed' }),
  total_results: Type.Integer({ description: 'exact' }),
  highlights: Type.Array(Type.Object({ name: Type.String(), ids: Type.Array(Type.String()) })),
  facets: Type.Record(Type.String(), Type.Array(FacetEntry)),
  results: Type.Array(BinaryDocument),
  elapsed: Type.Number({ description: 'seconds' }),
  start: Type.Integer(),
});
export type BinarySearchReply = Static<typeof BinarySearchReply>;
