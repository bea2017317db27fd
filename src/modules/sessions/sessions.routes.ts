/**
 * Console login, logout and "who am I", for the analyst console (issue 20). Scripts keep using
 * X-Auth-Token; a session cookie is for browsers only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { clearedSessionCookie, sessionCookie } from '../../http/session-cookie.js';
import { ResultSuccess } from '../../http/schemas.js';
import type { SessionsService } from './sessions.service.js';
import { LoginBody, SessionReply } from './sessions.schemas.js';

export const sessionsRoutes: FastifyPluginAsyncTypebox<{ sessions: SessionsService; secureCookies: boolean }> = async (
  app,
  { sessions, secureCookies },
) => {
  const tags = ['sessions'];

  app.post('/api/auth/login', {
    // Public: the password is the credential. Failed attempts are slowed per username and address.
    config: { auth: 'public' },
    schema: {
      tags,
      summary: 'Log in with a username and password: sets the session cookie and gives the CSRF token (429 with Retry-After while failed logins are slowed)',
      body: LoginBody,
      response: { 200: SessionReply },
    },
  }, async (request, reply) => {
    const login = await sessions.login(request.body, request.ip, request.log);
    reply.header('set-cookie', sessionCookie(login.sessionId, login.maxAgeSeconds, secureCookies));
    return login.reply;
  });

  app.post('/api/auth/logout', {
    schema: { tags, summary: 'End this session and drop its cookie', response: { 200: ResultSuccess } },
  }, async (request, reply) => {
    reply.header('set-cookie', clearedSessionCookie(secureCookies));
    return sessions.logout(request.consoleSession);
  });

  app.get('/api/auth/session', {
    schema: { tags, summary: 'Who this request is authenticated as, and (for a session) its CSRF token', response: { 200: SessionReply } },
  }, (request) => sessions.describe(request.principal, request.consoleSession));
};
