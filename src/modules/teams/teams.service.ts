/** Teams: named sets of users with an access level per sensor group. Global admins only. */
import { NotFoundError } from '../../domain/errors.js';
import { requireGlobalAdmin, type GroupGrant, type Principal } from '../../domain/permissions.js';
import type { Team, TeamCreateBody, TeamUpdateBody } from './teams.schemas.js';
import type { TeamRecord, TeamsStore } from './teams.store.js';

export class TeamsService {
  constructor(private readonly store: TeamsStore) {}

  async list(actor: Principal): Promise<Team[]> {
    requireGlobalAdmin(actor, 'list teams');
    return (await this.store.list()).map(toWire);
  }

  async get(actor: Principal, id: number): Promise<Team> {
    requireGlobalAdmin(actor, 'read teams');
    return toWire(await this.existing(id));
  }

  async create(actor: Principal, body: TeamCreateBody): Promise<Team> {
    requireGlobalAdmin(actor, 'create teams');
    return toWire(await this.store.create(body.name, toGrants(body.group_access)));
  }

  async update(actor: Principal, id: number, body: TeamUpdateBody): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'change teams');
    const updated = await this.store.update(id, {
      name: body.name,
      grants: body.group_access === undefined ? undefined : toGrants(body.group_access),
    });
    if (!updated) throw new NotFoundError(`No team with id ${id}`);
    return { result: 'success' };
  }

  async delete(actor: Principal, id: number): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'delete teams');
    if (!(await this.store.delete(id))) throw new NotFoundError(`No team with id ${id}`);
    return { result: 'success' };
  }

  private async existing(id: number): Promise<TeamRecord> {
    const team = await this.store.get(id);
    if (!team) throw new NotFoundError(`No team with id ${id}`);
    return team;
  }
}

function toGrants(access: TeamCreateBody['group_access']): GroupGrant[] {
  return (access ?? []).map((entry) => ({ groupId: entry.group_id, accessCategory: entry.access_category }));
}

function toWire(team: TeamRecord): Team {
  return {
    id: team.id,
    name: team.name,
    group_access: team.groupAccess.map((entry) => ({
      group_id: entry.groupId,
      group_name: entry.groupName,
      access_category: entry.accessCategory,
    })),
  };
}
