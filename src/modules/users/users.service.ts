/**
 * Users: who they are, how they authenticate, and who may manage them. Only global admins manage
 * users; a user may read and edit their own record (but not their teams or admin flag) and reset
 * their own token.
 */
import {
  ConflictError,
  ForbiddenError,
  InvalidRequestError,
  NotFoundError,
  UnauthorizedError,
} from '../../domain/errors.js';
import {
  effectiveGroupAccess,
  requireGlobalAdmin,
  requireSelfOrGlobalAdmin,
  type Principal,
} from '../../domain/permissions.js';
import type { TeamsStore } from '../teams/teams.store.js';
import {
  TOKEN_PATTERN,
  deriveToken,
  digestsEqual,
  hashPassword,
  hashToken,
  newTokenSalt,
  verifyPassword,
} from './credentials.js';
import type { User, UserCreateBody, UserSummary, UserUpdateBody } from './users.schemas.js';
import type { UserRecord, UsersStore } from './users.store.js';
import { USERNAME_RULE, isValidUsername } from './username.js';

export const BOOTSTRAP_ADMIN = 'admin';

export interface NewUserFromShell {
  username: string;
  globalAdmin: boolean;
  password?: string | undefined;
}

export class UsersService {
  constructor(
    private readonly store: UsersStore,
    private readonly teams: Pick<TeamsStore, 'missingIds'>,
    private readonly tokenKey: Buffer,
  ) {}

  /** The principal behind an X-Auth-Token header value; UnauthorizedError otherwise. */
  async authenticate(token: string | undefined): Promise<Principal> {
    if (token === undefined || !TOKEN_PATTERN.test(token)) throw new UnauthorizedError();
    const presented = hashToken(token);
    const user = await this.store.findByTokenHash(presented);
    if (!user || !digestsEqual(user.tokenHash, presented)) throw new UnauthorizedError();
    return {
      userId: user.id,
      username: user.username,
      globalAdmin: user.globalAdmin,
      groupAccess: effectiveGroupAccess(await this.store.groupGrants(user.id)),
    };
  }

  async list(actor: Principal): Promise<UserSummary[]> {
    requireGlobalAdmin(actor, 'list users');
    return (await this.store.list()).map(toSummary);
  }

  async get(actor: Principal, username: string): Promise<User> {
    requireSelfOrGlobalAdmin(actor, username, 'read this user');
    const user = await this.existing(username);
    return { ...toSummary(user), auth_token: await this.currentToken(user) };
  }

  async create(actor: Principal, body: UserCreateBody): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'create users');
    checkPasswordConfirmation(body.password, body.confirm_password);
    const teamIds = await this.checkedTeamIds(body.teams);
    const salt = newTokenSalt();
    await this.store.create({
      username: body.username,
      firstName: body.first_name ?? '',
      lastName: body.last_name ?? '',
      email: body.email ?? '',
      globalAdmin: body.global_admin ?? false,
      passwordHash: body.password === undefined ? null : await hashPassword(body.password),
      tokenSalt: salt,
      tokenHash: hashToken(deriveToken(this.tokenKey, salt)),
      teamIds,
    });
    return { result: 'success' };
  }

  async update(actor: Principal, username: string, body: UserUpdateBody): Promise<{ result: 'success' }> {
    requireSelfOrGlobalAdmin(actor, username, 'change this user');
    const user = await this.existing(username);
    if (body.username !== undefined && body.username !== username) {
      throw new InvalidRequestError('username: a user cannot be renamed');
    }
    checkPasswordConfirmation(body.password, body.confirm_password);
    const teamIds = body.teams === undefined ? undefined : await this.checkedTeamIds(body.teams);
    if (!actor.globalAdmin) {
      requireUnchanged(body.global_admin === undefined || body.global_admin === user.globalAdmin, 'global_admin');
      requireUnchanged(teamIds === undefined || sameIds(teamIds, user.teams.map((t) => t.id)), 'teams');
      if (body.password !== undefined) await this.checkCurrentPassword(user, body.current_password);
    }
    if (user.globalAdmin && body.global_admin === false) await this.keepOneGlobalAdmin('demote');
    await this.store.update(username, {
      firstName: body.first_name,
      lastName: body.last_name,
      email: body.email,
      globalAdmin: body.global_admin,
      passwordHash: body.password === undefined ? undefined : await hashPassword(body.password),
      teamIds,
    });
    return { result: 'success' };
  }

  async delete(actor: Principal, username: string): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'delete users');
    const user = await this.existing(username);
    if (user.globalAdmin) await this.keepOneGlobalAdmin('delete');
    await this.store.delete(username);
    return { result: 'success' };
  }

  /** Issues a new token; the old one stops working at once. */
  async resetToken(actor: Principal, username: string): Promise<{ auth_token: string }> {
    requireSelfOrGlobalAdmin(actor, username, 'reset this token');
    await this.existing(username);
    return { auth_token: await this.rotateToken(username) };
  }

  /** On first start: creates the global admin `admin` when there are no users; returns its token. */
  async bootstrapAdmin(): Promise<string | undefined> {
    if ((await this.store.list()).length > 0) return undefined;
    return this.addFromShell({ username: BOOTSTRAP_ADMIN, globalAdmin: true });
  }

  /** `vigil user add`: the shell user owns the data dir, so no principal is involved. Returns the token. */
  async addFromShell(user: NewUserFromShell): Promise<string> {
    if (!isValidUsername(user.username)) throw new InvalidRequestError(`username: ${USERNAME_RULE}`);
    const salt = newTokenSalt();
    const token = deriveToken(this.tokenKey, salt);
    await this.store.create({
      username: user.username,
      firstName: '',
      lastName: '',
      email: '',
      globalAdmin: user.globalAdmin,
      passwordHash: user.password === undefined ? null : await hashPassword(user.password),
      tokenSalt: salt,
      tokenHash: hashToken(token),
      teamIds: [],
    });
    return token;
  }

  /** `vigil user passwd`: the shell user owns the data dir, so no principal or current password is asked for. */
  async setPasswordFromShell(username: string, password: string): Promise<void> {
    await this.existing(username);
    await this.store.update(username, { passwordHash: await hashPassword(password) });
  }

  /** `vigil token`: the user's current token, or a new one if the key it came from was lost. */
  async tokenFromShell(username: string): Promise<string> {
    return this.currentToken(await this.existing(username));
  }

  private async currentToken(user: UserRecord): Promise<string> {
    const token = deriveToken(this.tokenKey, user.tokenSalt);
    if (digestsEqual(hashToken(token), user.tokenHash)) return token;
    return this.rotateToken(user.username);
  }

  private async rotateToken(username: string): Promise<string> {
    const salt = newTokenSalt();
    const token = deriveToken(this.tokenKey, salt);
    await this.store.update(username, { tokenSalt: salt, tokenHash: hashToken(token) });
    return token;
  }

  private async existing(username: string): Promise<UserRecord> {
    const user = await this.store.findByUsername(username);
    if (!user) throw new NotFoundError(`No user named ${username}`);
    return user;
  }

  private async checkedTeamIds(teams: UserCreateBody['teams']): Promise<number[]> {
    const ids = (teams ?? []).map((team) => (typeof team === 'number' ? team : team.id));
    const missing = await this.teams.missingIds(ids);
    if (missing.length > 0) throw new InvalidRequestError(`teams: no team with id ${missing.join(', ')}`);
    return ids;
  }

  private async checkCurrentPassword(user: UserRecord, currentPassword: string | undefined): Promise<void> {
    if (user.passwordHash === null) return;
    if (currentPassword === undefined || !(await verifyPassword(currentPassword, user.passwordHash))) {
      throw new InvalidRequestError('current_password: does not match the current password');
    }
  }

  private async keepOneGlobalAdmin(action: string): Promise<void> {
    if ((await this.store.countGlobalAdmins()) <= 1) {
      throw new ConflictError(`Cannot ${action} the last global administrator`);
    }
  }
}

function toSummary(user: UserRecord): UserSummary {
  return {
    username: user.username,
    first_name: user.firstName,
    last_name: user.lastName,
    email: user.email,
    global_admin: user.globalAdmin,
    teams: user.teams,
  };
}

function checkPasswordConfirmation(password: string | undefined, confirmation: string | undefined): void {
  if (confirmation !== undefined && confirmation !== password) {
    throw new InvalidRequestError('confirm_password: does not match password');
  }
}

function requireUnchanged(unchanged: boolean, field: string): void {
  if (!unchanged) throw new ForbiddenError(`${field}: only a global administrator may change it`);
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  const left = [...new Set(a)].sort();
  const right = [...new Set(b)].sort();
  return left.length === right.length && left.every((id, i) => id === right[i]);
}
