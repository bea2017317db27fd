/** Wire shapes of teams, as reference core §8.2 gives them. */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

export const AccessCategory = Type.Union([
  Type.Literal('Administrator'),
  Type.Literal('Viewer'),
  Type.Literal('No Access'),
]);

export const TeamGroupAccess = Type.Object({
  group_id: Type.Integer(),
  group_name: Type.String(),
  access_category: AccessCategory,
});

const TeamGroupAccessInput = Type.Object({
  group_id: IntegerId,
  group_name: Type.Optional(Type.String()),
  access_category: AccessCategory,
});

const TeamName = Type.String({ minLength: 1, maxLength: 256 });

export const Team = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  group_access: Type.Array(TeamGroupAccess),
});
export type Team = Static<typeof Team>;

export const TeamParams = Type.Object({ id: IntegerId });

export const TeamCreateBody = Type.Object({
  name: TeamName,
  group_access: Type.Optional(Type.Array(TeamGroupAccessInput, { maxItems: 10000 })),
});
export type TeamCreateBody = Static<typeof TeamCreateBody>;

/** cbapi PUTs the whole team as read (including id); only name and group_access matter. */
export const TeamUpdateBody = Type.Partial(TeamCreateBody);
export type TeamUpdateBody = Static<typeof TeamUpdateBody>;
