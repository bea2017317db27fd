/**
 * Sensor groups and the access each team has to them. Written once against SqlDatabase;
 * groups.store.contract.ts is the contract every dialect must pass.
 */
import type { SqlDatabase, SqlExecutor } from '../../db/database.js';
import { ForeignKeyViolation, UniqueViolation } from '../../db/errors.js';
import { ConflictError, InvalidRequestError } from '../../domain/errors.js';
import type { AccessCategory } from '../../domain/permissions.js';
import type { GroupSettings } from './groups.schemas.js';

/** Seeded by the first migration as "Default Group"; it always exists. */
export const DEFAULT_GROUP_ID = 1;

export interface TeamGrant {
  teamId: number;
  accessCategory: AccessCategory;
}

export interface GroupTeamAccess extends TeamGrant {
  teamName: string;
}

export interface GroupRecord {
  id: number;
  name: string;
  siteId: number;
  /** The settings as last written; fields never written are absent (the service fills in defaults). */
  settings: Partial<GroupSettings>;
  /** Sensors in the group. */
  numberOfHosts: number;
  /** One entry per team, "No Access" where the team was given nothing; ordered by team id. */
  teamAccess: GroupTeamAccess[];
}

export interface NewGroup {
  name: string;
  siteId: number;
  settings: Partial<GroupSettings>;
  teamGrants: readonly TeamGrant[];
}

/**
 * Fields to change; absent ones keep their value. `settings` is merged over the stored settings
 * (fields given replace, others stay); `teamGrants` sets the access of the teams listed and leaves
 * the other teams' access alone.
 */
export interface GroupChanges {
  name?: string | undefined;
  siteId?: number | undefined;
  settings?: Partial<GroupSettings> | undefined;
  teamGrants?: readonly TeamGrant[] | undefined;
}

export interface GroupsStore {
  /**
   * Adds a group. ConflictError when the name is taken; InvalidRequestError naming site_id for
   * an unknown site, or team_access for an unknown team.
   */
  create(group: NewGroup): Promise<GroupRecord>;
  get(id: number): Promise<GroupRecord | undefined>;
  /**
   * The group's settings alone, as `get` gives them; undefined when there is no such group. For
   * every check-in's reads: `get` also counts the group's sensors, a scan of thousands of rows.
   */
  settings(id: number): Promise<Partial<GroupSettings> | undefined>;
  /** Every group, ordered by id. */
  list(): Promise<GroupRecord[]>;
  /** Applies the changes in one transaction; undefined when there is no such group. Same errors as create. */
  update(id: number, changes: GroupChanges): Promise<GroupRecord | undefined>;
  /**
   * Removes the group and every team's access to it; false when there was no such group.
   * ConflictError while sensors are in it.
   */
  delete(id: number): Promise<boolean>;
}

interface GroupRow {
  id: number;
  name: string;
  site_id: number;
  settings: string;
}

const GROUP_COLUMNS = 'id, name, site_id, settings';

export class SqlGroupsStore implements GroupsStore {
  constructor(private readonly db: SqlDatabase) {}

  create(group: NewGroup): Promise<GroupRecord> {
    return this.translatingErrors(group.name, () =>
      this.db.transaction(async (tx) => {
        const row = await naming('site_id', `no site with id ${group.siteId}`, tx.get<{ id: number }>(
          'INSERT INTO sensor_groups (name, site_id, settings) VALUES (?, ?, ?) RETURNING id',
          [group.name, group.siteId, JSON.stringify(group.settings)],
        ));
        await writeTeamGrants(tx, row!.id, group.teamGrants);
        return (await this.fetch(tx, row!.id))!;
      }),
    );
  }

  get(id: number): Promise<GroupRecord | undefined> {
    return this.fetch(this.db, id);
  }

  async settings(id: number): Promise<Partial<GroupSettings> | undefined> {
    const row = await this.db.get<Pick<GroupRow, 'settings'>>('SELECT settings FROM sensor_groups WHERE id = ?', [id]);
    return row && parseSettings(row.settings);
  }

  async list(): Promise<GroupRecord[]> {
    const rows = await this.db.all<GroupRow>(`SELECT ${GROUP_COLUMNS} FROM sensor_groups ORDER BY id`);
    const access = await teamAccessGrid(this.db);
    const counts = await this.db.all<{ group_id: number; n: number }>('SELECT group_id, COUNT(*) AS n FROM sensors GROUP BY group_id');
    const hosts = new Map(counts.map((count) => [count.group_id, Number(count.n)]));
    return rows.map((row) => toRecord(row, access(row.id), hosts.get(row.id) ?? 0));
  }

  update(id: number, changes: GroupChanges): Promise<GroupRecord | undefined> {
    return this.translatingErrors(changes.name ?? `with id ${id}`, () =>
      this.db.transaction(async (tx) => {
        const row = await tx.get<GroupRow>(`SELECT ${GROUP_COLUMNS} FROM sensor_groups WHERE id = ?`, [id]);
        if (!row) return undefined;
        const siteId = changes.siteId ?? row.site_id;
        const settings = { ...parseSettings(row.settings), ...changes.settings };
        await naming('site_id', `no site with id ${siteId}`, tx.run(
          'UPDATE sensor_groups SET name = ?, site_id = ?, settings = ? WHERE id = ?',
          [changes.name ?? row.name, siteId, JSON.stringify(settings), id],
        ));
        if (changes.teamGrants) await writeTeamGrants(tx, id, changes.teamGrants);
        return this.fetch(tx, id);
      }),
    );
  }

  async delete(id: number): Promise<boolean> {
    try {
      return (await this.db.run('DELETE FROM sensor_groups WHERE id = ?', [id])).changes > 0;
    } catch (error) {
      if (error instanceof ForeignKeyViolation) throw new ConflictError(`Sensor group ${id} still holds sensors; move them to another group first`);
      throw error;
    }
  }

  private async fetch(db: SqlExecutor, id: number): Promise<GroupRecord | undefined> {
    const row = await db.get<GroupRow>(`SELECT ${GROUP_COLUMNS} FROM sensor_groups WHERE id = ?`, [id]);
    if (!row) return undefined;
    const hosts = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM sensors WHERE group_id = ?', [id]);
    return toRecord(row, (await teamAccessGrid(db, id))(row.id), Number(hosts?.n ?? 0));
  }

  private async translatingErrors<T>(name: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof UniqueViolation) throw new ConflictError(`Sensor group ${name} already exists`);
      throw error;
    }
  }
}

/** Awaits one statement, turning a foreign-key violation into an InvalidRequestError naming `field`. */
async function naming<T>(field: string, problem: string, statement: Promise<T>): Promise<T> {
  try {
    return await statement;
  } catch (error) {
    if (error instanceof ForeignKeyViolation) throw new InvalidRequestError(`${field}: ${problem}`);
    throw error;
  }
}

/** Sets each listed team's access to the group; "No Access" is stored as the absence of a row. */
async function writeTeamGrants(tx: SqlExecutor, groupId: number, grants: readonly TeamGrant[]): Promise<void> {
  for (const { teamId, accessCategory } of grants) {
    await tx.run('DELETE FROM team_group_access WHERE team_id = ? AND group_id = ?', [teamId, groupId]);
    if (accessCategory !== 'No Access') {
      await naming('team_access', `no team with id ${teamId}`, tx.run(
        'INSERT INTO team_group_access (team_id, group_id, access_category) VALUES (?, ?, ?)',
        [teamId, groupId, accessCategory],
      ));
    }
  }
}

/** A function from group id to every team's access on that group (one query for all groups). */
async function teamAccessGrid(db: SqlExecutor, groupId?: number): Promise<(groupId: number) => GroupTeamAccess[]> {
  const teams = await db.all<{ id: number; name: string }>('SELECT id, name FROM teams ORDER BY id');
  const rows = await db.all<{ team_id: number; group_id: number; access_category: AccessCategory }>(
    groupId === undefined
      ? 'SELECT team_id, group_id, access_category FROM team_group_access'
      : 'SELECT team_id, group_id, access_category FROM team_group_access WHERE group_id = ?',
    groupId === undefined ? [] : [groupId],
  );
  const granted = new Map(rows.map((row) => [`${row.team_id}:${row.group_id}`, row.access_category]));
  return (id) =>
    teams.map((team) => ({
      teamId: team.id,
      teamName: team.name,
      accessCategory: granted.get(`${team.id}:${id}`) ?? 'No Access',
    }));
}

function parseSettings(text: string): Partial<GroupSettings> {
  return JSON.parse(text) as Partial<GroupSettings>;
}

function toRecord(row: GroupRow, teamAccess: GroupTeamAccess[], numberOfHosts: number): GroupRecord {
  return {
    id: row.id,
    name: row.name,
    siteId: row.site_id,
    settings: parseSettings(row.settings),
    numberOfHosts,
    teamAccess,
  };
}
