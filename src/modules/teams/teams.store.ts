/**
 * Teams and the access each grants per sensor group. Written once against SqlDatabase;
 * teams.store.contract.ts is the contract every dialect must pass.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import { ForeignKeyViolation, UniqueViolation } from '../../db/errors.js';
import { ConflictError, InvalidRequestError } from '../../domain/errors.js';
import type { AccessCategory, GroupGrant } from '../../domain/permissions.js';

export interface TeamGroupAccess extends GroupGrant {
  groupName: string;
}

export interface TeamRecord {
  id: number;
  name: string;
  /** One entry per sensor group, "No Access" where the team was given nothing; ordered by group id. */
  groupAccess: TeamGroupAccess[];
}

export interface TeamsStore {
  /** Adds a team. ConflictError when the name is taken, InvalidRequestError for an unknown group. */
  create(name: string, grants: readonly GroupGrant[]): Promise<TeamRecord>;
  get(id: number): Promise<TeamRecord | undefined>;
  /** Every team, ordered by id. */
  list(): Promise<TeamRecord[]>;
  /** Renames and/or replaces the grants of the groups listed (others keep theirs); undefined when absent. */
  update(id: number, changes: { name?: string | undefined; grants?: readonly GroupGrant[] | undefined }): Promise<TeamRecord | undefined>;
  /** Removes the team, its grants and memberships; false when absent. */
  delete(id: number): Promise<boolean>;
  /** The ids among `ids` that name no team. */
  missingIds(ids: readonly number[]): Promise<number[]>;
}

export class SqlTeamsStore implements TeamsStore {
  constructor(private readonly db: SqlDatabase) {}

  create(name: string, grants: readonly GroupGrant[]): Promise<TeamRecord> {
    return this.translatingErrors(name, () =>
      this.db.transaction(async (tx) => {
        const row = await tx.get<{ id: number }>('INSERT INTO teams (name) VALUES (?) RETURNING id', [name]);
        await writeGrants(tx, row!.id, grants);
        return (await this.fetch(tx, row!.id))!;
      }),
    );
  }

  get(id: number): Promise<TeamRecord | undefined> {
    return this.fetch(this.db, id);
  }

  async list(): Promise<TeamRecord[]> {
    const teams = await this.db.all<{ id: number; name: string }>('SELECT id, name FROM teams ORDER BY id');
    const grid = await accessGrid(this.db);
    return teams.map((team) => ({ ...team, groupAccess: grid(team.id) }));
  }

  update(id: number, changes: { name?: string | undefined; grants?: readonly GroupGrant[] | undefined }): Promise<TeamRecord | undefined> {
    return this.translatingErrors(changes.name ?? String(id), () =>
      this.db.transaction(async (tx) => {
        const exists = await tx.get<{ id: number }>('SELECT id FROM teams WHERE id = ?', [id]);
        if (!exists) return undefined;
        if (changes.name !== undefined) await tx.run('UPDATE teams SET name = ? WHERE id = ?', [changes.name, id]);
        if (changes.grants) await writeGrants(tx, id, changes.grants);
        return this.fetch(tx, id);
      }),
    );
  }

  async delete(id: number): Promise<boolean> {
    return (await this.db.run('DELETE FROM teams WHERE id = ?', [id])).changes > 0;
  }

  async missingIds(ids: readonly number[]): Promise<number[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    const found = await this.db.all<{ id: number }>(
      `SELECT id FROM teams WHERE id IN (${wanted.map(() => '?').join(', ')})`,
      wanted,
    );
    const present = new Set(found.map((row) => Number(row.id)));
    return wanted.filter((id) => !present.has(id));
  }

  private async fetch(db: SqlExecutor, id: number): Promise<TeamRecord | undefined> {
    const team = await db.get<{ id: number; name: string }>('SELECT id, name FROM teams WHERE id = ?', [id]);
    if (!team) return undefined;
    return { ...team, groupAccess: (await accessGrid(db, id))(team.id) };
  }

  private async translatingErrors<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof UniqueViolation) throw new ConflictError(`Team ${name} already exists`);
      if (error instanceof ForeignKeyViolation) throw new InvalidRequestError('group_access: a listed group does not exist');
      throw error;
    }
  }
}

/** Sets the team's access for each listed group; "No Access" is stored as the absence of a row. */
async function writeGrants(tx: SqlExecutor, teamId: number, grants: readonly GroupGrant[]): Promise<void> {
  for (const { groupId, accessCategory } of grants) {
    await tx.run('DELETE FROM team_group_access WHERE team_id = ? AND group_id = ?', [teamId, groupId]);
    if (accessCategory !== 'No Access') {
      await tx.run('INSERT INTO team_group_access (team_id, group_id, access_category) VALUES (?, ?, ?)', [
        teamId, groupId, accessCategory,
      ]);
    }
  }
}

/** A function from team id to that team's access on every group (one query for all teams). */
async function accessGrid(db: SqlExecutor, teamId?: number): Promise<(teamId: number) => TeamGroupAccess[]> {
  const groups = await db.all<{ id: number; name: string }>('SELECT id, name FROM sensor_groups ORDER BY id');
  const rows = await db.all<{ team_id: number; group_id: number; access_category: AccessCategory }>(
    teamId === undefined
      ? 'SELECT team_id, group_id, access_category FROM team_group_access'
      : 'SELECT team_id, group_id, access_category FROM team_group_access WHERE team_id = ?',
    teamId === undefined ? [] : [teamId],
  );
  const granted = new Map(rows.map((row) => [`${row.team_id}:${row.group_id}`, row.access_category]));
  return (id) =>
    groups.map((group) => ({
      groupId: group.id,
      groupName: group.name,
      accessCategory: granted.get(`${id}:${group.id}`) ?? 'No Access',
    }));
}
