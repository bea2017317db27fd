/** Schemas shared by many routes. */
import { Type } from '@sinclair/typebox';

/** Carbon Black's usual reply to a successful write. */
export const ResultSuccess = Type.Object({ result: Type.Literal('success') });

/** POST replies that carry only the new object's id (groups, watchlists, …). */
export const CreatedId = Type.Object({ id: Type.Integer() });

export const IntegerId = Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 });

/** Non-JSON replies, described for the OpenAPI document. */
export function bytesReply(mediaType: string, description: string) {
  return { description, content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } } };
}
