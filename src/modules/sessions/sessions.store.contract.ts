/**
 * The contract of SessionsStore, run against every dialect (sessions.store.test.ts). Assertions
 * speak only of the interface, never of a dialect's SQL.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { SqlDatabase } from '../../db/database.js';
import { SqlUsersStore } from '../users/users.store.js';
import { SqlSessionsStore, type NewSession } from './sessions.store.js';

async function withUser(db: SqlDatabase, username: string, passwordHash: string | null = 'scrypt$1') {
  return new SqlUsersStore(db).create({
    username, firstName: '', lastName: '', email: '', globalAdmin: username === 'root', passwordHash,
    tokenSalt: `salt-${username}`, tokenHash: `hash-${username}`, teamIds: [],
  });
}

function session(idHash: string, userId: number, overrides: Partial<NewSession> = {}): NewSession {
  return { idHash, userId, passwordStamp: 'stamp', createdMs: 1_000, lastSeenMs: 1_000, expiresMs: 100_000, ...overrides };
}

export function sessionsStoreContract(fresh: () => Promise<SqlDatabase>): void {
  it('keeps a session and finds it with its user as the user is now', async () => {
    const db = await fresh();
    const root = await withUser(db, 'root');
    const sessions = new SqlSessionsStore(db);
    await sessions.create(session('a'.repeat(64), root.id));
    assert.deepEqual(await sessions.find('a'.repeat(64)), {
      ...session('a'.repeat(64), root.id), username: 'root', globalAdmin: true, passwordHash: 'scrypt$1',
    });
    await new SqlUsersStore(db).update('root', { passwordHash: 'scrypt$2' });
    assert.equal((await sessions.find('a'.repeat(64)))?.passwordHash, 'scrypt$2');
    assert.equal(await sessions.find('b'.repeat(64)), undefined);
  });

  it('forgets every session of a deleted user', async () => {
    const db = await fresh();
    const users = new SqlUsersStore(db);
    const alice = await withUser(db, 'alice');
    const bob = await withUser(db, 'bob');
    const sessions = new SqlSessionsStore(db);
    await sessions.create(session('alice-1', alice.id));
    await sessions.create(session('alice-2', alice.id));
    await sessions.create(session('bob-1', bob.id));
    await users.delete('alice');
    assert.equal(await sessions.find('alice-1'), undefined);
    assert.equal(await sessions.find('alice-2'), undefined);
    assert.equal((await sessions.find('bob-1'))?.username, 'bob');
    assert.equal(await sessions.deleteEnded(0, -1), 0, 'no orphan rows are left to delete');
  });

  it('notes use and deletes one session', async () => {
    const db = await fresh();
    const carol = await withUser(db, 'carol');
    const sessions = new SqlSessionsStore(db);
    await sessions.create(session('c', carol.id));
    await sessions.touch('c', 5_000);
    assert.equal((await sessions.find('c'))?.lastSeenMs, 5_000);
    assert.equal(await sessions.delete('c'), true);
    assert.equal(await sessions.delete('c'), false);
    assert.equal(await sessions.find('c'), undefined);
  });

  it('deletes the sessions past their absolute end or idle too long, and only those', async () => {
    const db = await fresh();
    const dave = await withUser(db, 'dave');
    const sessions = new SqlSessionsStore(db);
    await sessions.create(session('expired', dave.id, { expiresMs: 10_000, lastSeenMs: 9_000 }));
    await sessions.create(session('idle', dave.id, { expiresMs: 50_000, lastSeenMs: 2_000 }));
    await sessions.create(session('live', dave.id, { expiresMs: 50_000, lastSeenMs: 9_000 }));
    assert.equal(await sessions.deleteEnded(10_000, 2_000), 2);
    assert.equal(await sessions.find('expired'), undefined);
    assert.equal(await sessions.find('idle'), undefined);
    assert.equal((await sessions.find('live'))?.lastSeenMs, 9_000);
  });

  it('holds ids of 64 hex characters and millisecond times past 2^31', async () => {
    const db = await fresh();
    const erin = await withUser(db, 'erin');
    const sessions = new SqlSessionsStore(db);
    const now = Date.UTC(2030, 0, 1);
    await sessions.create(session('f'.repeat(64), erin.id, { createdMs: now, lastSeenMs: now, expiresMs: now + 3_600_000 }));
    const found = await sessions.find('f'.repeat(64));
    assert.equal(found?.expiresMs, now + 3_600_000);
    assert.equal(found?.userId, erin.id);
  });
}
