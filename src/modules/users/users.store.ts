/**
 * Users, their team memberships and the group access those teams grant.
 * Written once against SqlDatabase, so every dialect shares it; users.store.contract.ts is the
 * contract every dialect must pass.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import { ForeignKeyViolation, UniqueViolation } from '../../db/errors.js';
import { ConflictError, InvalidRequestError } from '../../domain/errors.js';
import type { AccessCategory, GroupGrant } from '../../domain/permissions.js';

export interface TeamRef {
  id: number;
  name: string;
}

export interface UserRecord {
  id: number;
  username: string;
  firstName: string;
  lastName: string;
  email: string;
  globalAdmin: boolean;
  /** scrypt hash; null when the user has no password (token-only, like the bootstrap admin). */
  passwordHash: string | null;
  tokenSalt: string;
  tokenHash: string;
  /** Teams the user belongs to, ordered by id. */
  teams: TeamRef[];
}

export type NewUser = Omit<UserRecord, 'id' | 'teams'> & { teamIds: number[] };

/** Fields to change; absent fields keep their value. `teamIds` replaces the memberships. */
export type UserChanges = Partial<Omit<NewUser, 'username'>>;

export interface UsersStore {
  /** Adds a user. Throws ConflictError when the username is taken, InvalidRequestError for an unknown team. */
  create(user: NewUser): Promise<UserRecord>;
  findByUsername(username: string): Promise<UserRecord | undefined>;
  findByTokenHash(tokenHash: string): Promise<UserRecord | undefined>;
  /** Every user, ordered by username. */
  list(): Promise<UserRecord[]>;
  /** Applies changes; undefined when there is no such user. Same errors as create. */
  update(username: string, changes: UserChanges): Promise<UserRecord | undefined>;
  /** Removes the user and their memberships; false when there was no such user. */
  delete(username: string): Promise<boolean>;
  countGlobalAdmins(): Promise<number>;
  /** Every (group, access) grant of every team the user belongs to, unreduced. */
  groupGrants(userId: number): Promise<GroupGrant[]>;
}

interface UserRow {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  email: string;
  global_admin: number | boolean;
  password_hash: string | null;
  token_salt: string;
  token_hash: string;
}

const USER_COLUMNS =
  'id, username, first_name, last_name, email, global_admin, password_hash, token_salt, token_hash';

const COLUMN_OF: Record<keyof Omit<UserChanges, 'teamIds'>, string> = {
  firstName: 'first_name',
  lastName: 'last_name',
  email: 'email',
  globalAdmin: 'global_admin',
  passwordHash: 'password_hash',
  tokenSalt: 'token_salt',
  tokenHash: 'token_hash',
};

export class SqlUsersStore implements UsersStore {
  constructor(private readonly db: SqlDatabase) {}

  async create(user: NewUser): Promise<UserRecord> {
    return this.translatingErrors(user.username, () =>
      this.db.transaction(async (tx) => {
        const row = await tx.get<{ id: number }>(
          `INSERT INTO users (username, first_name, last_name, email, global_admin, password_hash, token_salt, token_hash, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          [user.username, user.firstName, user.lastName, user.email, user.globalAdmin, user.passwordHash,
            user.tokenSalt, user.tokenHash, new Date().toISOString()],
        );
        await this.replaceTeams(tx, row!.id, user.teamIds);
        return (await this.fetch(tx, 'username = ?', user.username))!;
      }),
    );
  }

  findByUsername(username: string): Promise<UserRecord | undefined> {
    return this.fetch(this.db, 'username = ?', username);
  }

  findByTokenHash(tokenHash: string): Promise<UserRecord | undefined> {
    return this.fetch(this.db, 'token_hash = ?', tokenHash);
  }

  async list(): Promise<UserRecord[]> {
    const rows = await this.db.all<UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY username`);
    const memberships = await this.db.all<{ user_id: number; id: number; name: string }>(
      'SELECT ut.user_id, t.id, t.name FROM user_teams ut JOIN teams t ON t.id = ut.team_id ORDER BY t.id',
    );
    return rows.map((row) =>
      toRecord(row, memberships.filter((m) => m.user_id === row.id).map(({ id, name }) => ({ id, name }))),
    );
  }

  async update(username: string, changes: UserChanges): Promise<UserRecord | undefined> {
    return this.translatingErrors(username, () =>
      this.db.transaction(async (tx) => {
        const existing = await tx.get<{ id: number }>('SELECT id FROM users WHERE username = ?', [username]);
        if (!existing) return undefined;
        const columns = (Object.keys(COLUMN_OF) as (keyof typeof COLUMN_OF)[]).filter((k) => changes[k] !== undefined);
        if (columns.length > 0) {
          await tx.run(`UPDATE users SET ${columns.map((k) => `${COLUMN_OF[k]} = ?`).join(', ')} WHERE id = ?`, [
            ...columns.map((k) => changes[k] as string | boolean | null),
            existing.id,
          ]);
        }
        if (changes.teamIds) await this.replaceTeams(tx, existing.id, changes.teamIds);
        return this.fetch(tx, 'id = ?', existing.id);
      }),
    );
  }

  async delete(username: string): Promise<boolean> {
    const { changes } = await this.db.run('DELETE FROM users WHERE username = ?', [username]);
    return changes > 0;
  }

  async countGlobalAdmins(): Promise<number> {
    const row = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM users WHERE global_admin = ?', [true]);
    return Number(row?.n ?? 0);
  }

  async groupGrants(userId: number): Promise<GroupGrant[]> {
    const rows = await this.db.all<{ group_id: number; access_category: AccessCategory }>(
      `SELECT a.group_id, a.access_category FROM user_teams ut
       JOIN team_group_access a ON a.team_id = ut.team_id WHERE ut.user_id = ?`,
      [userId],
    );
    return rows.map((row) => ({ groupId: row.group_id, accessCategory: row.access_category }));
  }

  private async fetch(db: SqlExecutor, where: string, value: string | number): Promise<UserRecord | undefined> {
    const row = await db.get<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE ${where}`, [value]);
    if (!row) return undefined;
    const teams = await db.all<TeamRef>(
      'SELECT t.id, t.name FROM user_teams ut JOIN teams t ON t.id = ut.team_id WHERE ut.user_id = ? ORDER BY t.id',
      [row.id],
    );
    return toRecord(row, teams);
  }

  private async replaceTeams(tx: SqlExecutor, userId: number, teamIds: readonly number[]): Promise<void> {
    await tx.run('DELETE FROM user_teams WHERE user_id = ?', [userId]);
    for (const teamId of new Set(teamIds)) {
      await tx.run('INSERT INTO user_teams (user_id, team_id) VALUES (?, ?)', [userId, teamId]);
    }
  }

  private async translatingErrors<T>(username: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof UniqueViolation) throw new ConflictError(`User ${username} already exists`);
      if (error instanceof ForeignKeyViolation) throw new InvalidRequestError('teams: a listed team does not exist');
      throw error;
    }
  }
}

function toRecord(row: UserRow, teams: TeamRef[]): UserRecord {
  return {
    id: row.id,
    username: row.username,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    globalAdmin: Boolean(row.global_admin),
    passwordHash: row.password_hash,
    tokenSalt: row.token_salt,
    tokenHash: row.token_hash,
    teams,
  };
}
