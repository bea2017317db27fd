/**
 * Sensor groups: the settings their sensors run with, and which teams may see or administer them.
 * Only global admins create, change or delete groups; anyone else sees the groups a team of theirs
 * grants them at least Viewer access to.
 */
import type { Config } from '../../config/schema.js';
import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import { canViewGroup, requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { DEFAULT_SITE_ID } from '../sites/sites.store.js';
import { groupDefaults, sensorBackendUrl } from './groups.defaults.js';
import {
  GroupSettings,
  type Group,
  type GroupCreateBody,
  type GroupSettingsInput,
  type GroupUpdateBody,
} from './groups.schemas.js';
import { DEFAULT_GROUP_ID, type GroupRecord, type GroupsStore, type TeamGrant } from './groups.store.js';

const SETTING_KEYS = Object.keys(GroupSettings.properties) as (keyof GroupSettings)[];

/** Sent as strings by Carbon Black 5.0 clients; stored and answered as integers. */
const BYTE_COUNT_KEYS: ReadonlySet<keyof GroupSettings> = new Set(['quota_eventlog_bytes', 'quota_storefile_bytes']);

export class GroupsService {
  private readonly defaults: GroupSettings;

  constructor(
    private readonly store: GroupsStore,
    config: Config,
  ) {
    this.defaults = groupDefaults(sensorBackendUrl(config));
  }

  async list(actor: Principal): Promise<Group[]> {
    const groups = await this.store.list();
    return groups.filter((group) => canViewGroup(actor, group.id)).map((group) => this.toWire(group));
  }

  /** A one-element array: Carbon Black answered a single group that way, and cbapi reads element 0. */
  async get(actor: Principal, id: number): Promise<Group[]> {
    // Checked before the lookup, so a caller without access cannot tell which groups exist.
    if (!canViewGroup(actor, id)) throw new ForbiddenError(`No access to sensor group ${id}`);
    const group = await this.store.get(id);
    if (!group) throw new NotFoundError(`No sensor group with id ${id}`);
    return [this.toWire(group)];
  }

  async create(actor: Principal, body: GroupCreateBody): Promise<{ id: number }> {
    requireGlobalAdmin(actor, 'create sensor groups');
    // Every setting is written, so the group keeps today's defaults even if later builds change them.
    const created = await this.store.create({
      name: body.name,
      siteId: body.site_id ?? DEFAULT_SITE_ID,
      settings: { ...this.defaults, ...settingsGiven(body) },
      teamGrants: teamGrants(body.team_access),
    });
    return { id: created.id };
  }

  async update(actor: Principal, id: number, body: GroupUpdateBody): Promise<void> {
    requireGlobalAdmin(actor, 'change sensor groups');
    const updated = await this.store.update(id, {
      name: body.name,
      siteId: body.site_id,
      settings: settingsGiven(body),
      teamGrants: body.team_access === undefined ? undefined : teamGrants(body.team_access),
    });
    if (!updated) throw new NotFoundError(`No sensor group with id ${id}`);
  }

  async delete(actor: Principal, id: number): Promise<void> {
    requireGlobalAdmin(actor, 'delete sensor groups');
    if (id === DEFAULT_GROUP_ID) throw new ForbiddenError('The default sensor group cannot be deleted');
    if (!(await this.store.delete(id))) throw new NotFoundError(`No sensor group with id ${id}`);
  }

  /** Whether the group's sensors enforce hash bans; false for a group that does not exist. */
  async banningEnabled(groupId: number): Promise<boolean> {
    const settings = await this.store.settings(groupId);
    return settings !== undefined && (settings.banning_enabled ?? this.defaults.banning_enabled);
  }

  private toWire(group: GroupRecord): Group {
    return {
      id: group.id,
      name: group.name,
      site_id: group.siteId,
      ...this.defaults,
      ...group.settings,
      number_of_hosts: group.numberOfHosts,
      team_access: group.teamAccess.map((entry) => ({
        team_id: entry.teamId,
        team_name: entry.teamName,
        access_category: entry.accessCategory,
      })),
      isolation_exclusions: [],
    };
  }
}

/** The settings the body carries, and nothing else: cbapi's bodies hold computed and unknown fields too. */
function settingsGiven(body: GroupSettingsInput): Partial<GroupSettings> {
  const settings: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = body[key];
    if (value !== undefined) settings[key] = BYTE_COUNT_KEYS.has(key) ? Number(value) : value;
  }
  return settings as Partial<GroupSettings>;
}

function teamGrants(access: GroupCreateBody['team_access']): TeamGrant[] {
  return (access ?? []).map((entry) => ({ teamId: entry.team_id, accessCategory: entry.access_category }));
}
