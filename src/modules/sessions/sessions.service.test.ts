/**
 * Session lifetimes and failed logins, on a real SQLite store and a clock the test moves: a session
 * ends when left idle or at its absolute end however much it is used, use is written back at most
 * once a minute, and every failed login is logged without its password.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { dialects } from '../../../test/support/dialects.js';
import type { SqlDatabase } from '../../db/database.js';
import { TooManyRequestsError, UnauthorizedError } from '../../domain/errors.js';
import { hashPassword } from '../users/credentials.js';
import { SqlUsersStore } from '../users/users.store.js';
import { LoginThrottle } from './login-throttle.js';
import { SessionsService } from './sessions.service.js';
import { SqlSessionsStore } from './sessions.store.js';

const MINUTE = 60_000;
const limits = { idleMs: 30 * MINUTE, maxMs: 12 * 60 * MINUTE };

describe('session lifetimes and failed logins', () => {
  let db: SqlDatabase;
  let store: SqlSessionsStore;
  let service: SessionsService;
  const clock = { now: Date.UTC(2026, 0, 1) };
  const logged: { details: Record<string, unknown>; message: string }[] = [];
  const log = { warn: (details: Record<string, unknown>, message: string) => logged.push({ details, message }) };

  before(async () => {
    db = await dialects.find((d) => d.name === 'sqlite')!.freshDatabase();
    await new SqlUsersStore(db).create({
      username: 'alice', firstName: '', lastName: '', email: '', globalAdmin: false, passwordHash: await hashPassword('s3cret-pw'),
      tokenSalt: 'salt', tokenHash: 'hash', teamIds: [],
    });
    store = new SqlSessionsStore(db);
  });
  beforeEach(() => {
    service = new SessionsService(store, new SqlUsersStore(db), new LoginThrottle(900_000, () => clock.now), limits, () => clock.now);
    logged.length = 0;
  });
  after(() => db.close());

  async function newSession(): Promise<string> {
    return (await service.login({ username: 'alice', password: 's3cret-pw' }, '10.0.0.1', log)).sessionId;
  }

  it('ends a session left idle, and keeps one in use', async () => {
    const id = await newSession();
    clock.now += 29 * MINUTE;
    assert.equal((await service.authenticate(id)).principal.username, 'alice');
    clock.now += 29 * MINUTE;
    await service.authenticate(id);
    clock.now += 30 * MINUTE;
    await assert.rejects(service.authenticate(id), UnauthorizedError);
    clock.now -= 30 * MINUTE;
    await assert.rejects(service.authenticate(id), UnauthorizedError, 'an ended session is deleted, not just refused');
  });

  it('ends a session at its absolute end however much it is used', async () => {
    const id = await newSession();
    const { expiresMs } = await service.authenticate(id);
    assert.equal(expiresMs, clock.now + limits.maxMs);
    while (clock.now + 20 * MINUTE < expiresMs) {
      clock.now += 20 * MINUTE;
      await service.authenticate(id);
    }
    clock.now = expiresMs;
    await assert.rejects(service.authenticate(id), UnauthorizedError);
  });

  it('writes use back at most once a minute', async () => {
    const id = await newSession();
    const started = clock.now;
    const lastSeen = async () => (await db.get<{ last_seen_ms: number }>('SELECT last_seen_ms FROM user_sessions ORDER BY created_ms DESC LIMIT 1'))!.last_seen_ms;
    clock.now += 59_000;
    await service.authenticate(id);
    assert.equal(Number(await lastSeen()), started);
    clock.now += 1_000;
    await service.authenticate(id);
    assert.equal(Number(await lastSeen()), started + MINUTE);
  });

  it('keeps a session in use alive under the shortest idle limit', async () => {
    const short = new SessionsService(store, new SqlUsersStore(db), new LoginThrottle(900_000, () => clock.now), { ...limits, idleMs: MINUTE }, () => clock.now);
    const { sessionId } = await short.login({ username: 'alice', password: 's3cret-pw' }, '10.0.0.1', log);
    for (let i = 0; i < 5; i++) {
      clock.now += 50_000;
      await short.authenticate(sessionId);
    }
  });

  it('logs every failed login with its username and address, never the password', async () => {
    await assert.rejects(service.login({ username: 'alice', password: 'guess-one' }, '10.0.0.9', log), UnauthorizedError);
    await assert.rejects(service.login({ username: 'mallory', password: 'guess-two' }, '10.0.0.9', log), UnauthorizedError);
    assert.deepEqual(logged.map((entry) => [entry.message, entry.details.username, entry.details.address]), [
      ['login failed', 'alice', '10.0.0.9'],
      ['login failed', 'mallory', '10.0.0.9'],
    ]);
    assert.doesNotMatch(JSON.stringify(logged), /guess-/);
  });

  it('refuses attempts while slowed, with the seconds to wait, and logs them', async () => {
    for (let i = 0; i < 4; i++) await assert.rejects(service.login({ username: 'alice', password: `wrong-${i}` }, '10.0.0.2', log), UnauthorizedError);
    await assert.rejects(
      service.login({ username: 'alice', password: 's3cret-pw' }, '10.0.0.3', log),
      (error) => error instanceof TooManyRequestsError && error.retryAfterSeconds === 1,
    );
    assert.equal(logged.at(-1)?.message, 'login refused: too many failed attempts');
    assert.doesNotMatch(JSON.stringify(logged), /wrong-|s3cret/);
    clock.now += 1_000;
    await newSession();
  });
});
