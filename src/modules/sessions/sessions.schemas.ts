/** Wire shapes of console logins (Vigil's own: Carbon Black's console login was not part of its API). */
import { Type, type Static } from '@sinclair/typebox';

export const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
}, { additionalProperties: false });
export type LoginBody = Static<typeof LoginBody>;

export const SessionReply = Type.Object({
  username: Type.String(),
  global_admin: Type.Boolean(),
  /** How this request was authenticated: the session cookie or an X-Auth-Token. */
  authenticated_by: Type.Union([Type.Literal('session'), Type.Literal('token')]),
  /** Send it as X-CSRF-Token with every state-changing call the cookie authenticates (session only). */
  csrf_token: Type.Optional(Type.String()),
  /** The session's absolute end, ISO 8601 (session only); it ends sooner when left idle. */
  expires: Type.Optional(Type.String()),
});
export type SessionReply = Static<typeof SessionReply>;
