/** Request and response shapes shared by the record searches (alerts, threat reports). */
import { Type, type TSchema } from '@sinclair/typebox';

/**
 * The parameters every record search reads; `cb.q.<field>` and `cb.fq.<field>` pass through
 * beside them. Paging limits are checked by the search itself, which knows its maximum.
 */
export const RecordSearchQuerystring = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 65536, description: 'the query; empty or absent: everything' })),
  'cb.urlver': Type.Optional(Type.String()),
  start: Type.Optional(Type.String({ pattern: '^\\d+$', description: 'offset of the first row' })),
  rows: Type.Optional(Type.String({ pattern: '^\\d+$', description: 'rows per page' })),
  sort: Type.Optional(Type.String({ maxLength: 256, description: '"<field> asc|desc", several separated by commas' })),
  facet: Type.Optional(Type.String({ description: 'true: add facets' })),
  facets: Type.Optional(Type.String({ description: 'the legacy spelling of facet' })),
  'facet.field': Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 32 })),
}, { description: 'also cb.q.<field>=<value> (ANDed terms) and cb.fq.<field>=<value> (filters; repeats ORed)' });

/** The same parameters as a JSON body; values may be lists, as the legacy client sends them. */
export const RecordSearchBody = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

export const FacetEntry = Type.Object({
  name: Type.String(),
  value: Type.Integer({ description: 'matching records with this value' }),
  percent: Type.Integer({ description: 'share of all matches, 0-100' }),
  ratio: Type.Number({ description: 'the same share, to one decimal' }),
});

export const Facets = Type.Record(Type.String(), Type.Array(FacetEntry));

export function searchEnvelope(result: TSchema) {
  return Type.Object({
    results: Type.Array(result),
    total_results: Type.Integer(),
    start: Type.Integer(),
    elapsed: Type.Number({ description: 'seconds' }),
    terms: Type.Array(Type.String()),
    facets: Facets,
    highlights: Type.Array(Type.Unknown()),
  });
}

