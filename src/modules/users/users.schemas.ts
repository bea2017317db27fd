/** Wire shapes of users, as reference core §8 gives them. */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';
import { USERNAME_PATTERN, USERNAME_RULE } from './username.js';

export const Username = Type.String({ pattern: USERNAME_PATTERN, description: USERNAME_RULE });

const Text = Type.String({ maxLength: 256 });
const Password = Type.String({ minLength: 1, maxLength: 1024 });

export const TeamRef = Type.Object({ id: Type.Integer(), name: Type.String() });

/** Teams are sent as ids on create (cbapi flattens them) and as {id, name} on update. */
const TeamInput = Type.Union([IntegerId, Type.Object({ id: IntegerId, name: Type.Optional(Type.String()) })]);

export const UserParams = Type.Object({ username: Type.String({ maxLength: 64 }) });

export const UserCreateBody = Type.Object({
  username: Username,
  password: Type.Optional(Password),
  confirm_password: Type.Optional(Password),
  first_name: Type.Optional(Text),
  last_name: Type.Optional(Text),
  email: Type.Optional(Text),
  global_admin: Type.Optional(Type.Boolean()),
  teams: Type.Optional(Type.Array(TeamInput, { maxItems: 1000 })),
});
export type UserCreateBody = Static<typeof UserCreateBody>;

/** cbapi PUTs the record as it last read it (with auth_token and a synthesized id), so extra fields are ignored. */
export const UserUpdateBody = Type.Object({
  username: Type.Optional(Type.String()),
  password: Type.Optional(Password),
  confirm_password: Type.Optional(Password),
  current_password: Type.Optional(Type.String({ maxLength: 1024 })),
  first_name: Type.Optional(Text),
  last_name: Type.Optional(Text),
  email: Type.Optional(Text),
  global_admin: Type.Optional(Type.Boolean()),
  teams: Type.Optional(Type.Array(TeamInput, { maxItems: 1000 })),
});
export type UserUpdateBody = Static<typeof UserUpdateBody>;

export const UserSummary = Type.Object({
  username: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String(),
  global_admin: Type.Boolean(),
  teams: Type.Array(TeamRef),
});
export type UserSummary = Static<typeof UserSummary>;

export const User = Type.Composite([UserSummary, Type.Object({ auth_token: Type.String() })]);
export type User = Static<typeof User>;

export const TokenReply = Type.Object({ auth_token: Type.String() });
