/**
 * Data sharing per sensor group. Anyone who may view a group reads its configurations; only a
 * global admin changes them, as only a global admin changes the group's other settings. Vigil
 * itself sends nothing anywhere: the configurations are kept and answered for the integrations
 * (cbapi's check_datasharing.py, connectors) that read them to decide what they may share.
 */
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { canViewGroup, requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import type { GroupDirectory } from '../sensors/sensors.service.js';
import type { DataSharingConfig, DataSharingCreateBody } from './datasharing.schemas.js';
import type { DataSharingRecord, DataSharingStore } from './datasharing.store.js';

const toWire = (record: DataSharingRecord): DataSharingConfig => ({
  id: record.id, group_id: record.groupId, who: record.who, what: record.what,
});

export class DataSharingService {
  constructor(
    private readonly store: DataSharingStore,
    private readonly groups: GroupDirectory,
  ) {}

  async list(actor: Principal, groupId: number): Promise<DataSharingConfig[]> {
    await this.requireViewableGroup(actor, groupId);
    return (await this.store.list(groupId)).map(toWire);
  }

  async get(actor: Principal, groupId: number, configId: number): Promise<DataSharingConfig> {
    await this.requireViewableGroup(actor, groupId);
    return toWire(await this.existing(groupId, configId));
  }

  async create(actor: Principal, groupId: number, body: DataSharingCreateBody): Promise<DataSharingConfig> {
    requireGlobalAdmin(actor, 'change data sharing');
    if (body.group_id !== undefined && body.group_id !== groupId) {
      throw new InvalidRequestError(`group_id ${body.group_id} does not match sensor group ${groupId} of the URL`);
    }
    return toWire(await this.store.create(groupId, body.who, body.what));
  }

  /** Answers the configuration removed. */
  async delete(actor: Principal, groupId: number, configId: number): Promise<DataSharingConfig> {
    requireGlobalAdmin(actor, 'change data sharing');
    const config = await this.existing(groupId, configId);
    if (!(await this.store.delete(groupId, configId))) throw notFound(groupId, configId);
    return toWire(config);
  }

  async deleteAll(actor: Principal, groupId: number): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'change data sharing');
    await this.requireGroup(groupId);
    await this.store.deleteAll(groupId);
    return { result: 'success' };
  }

  private async requireViewableGroup(actor: Principal, groupId: number): Promise<void> {
    // Checked before the lookup, so a caller without access cannot tell which groups exist.
    if (!canViewGroup(actor, groupId)) throw new ForbiddenError(`No access to sensor group ${groupId}`);
    await this.requireGroup(groupId);
  }

  private async requireGroup(groupId: number): Promise<void> {
    if (!(await this.groups.get(groupId))) throw new NotFoundError(`No sensor group with id ${groupId}`);
  }

  private async existing(groupId: number, configId: number): Promise<DataSharingRecord> {
    await this.requireGroup(groupId);
    const config = await this.store.get(groupId, configId);
    if (!config) throw notFound(groupId, configId);
    return config;
  }
}

function notFound(groupId: number, configId: number): NotFoundError {
  return new NotFoundError(`Sensor group ${groupId} has no data sharing configuration ${configId}`);
}
