/**
 * Sites group sensor groups (Carbon Black throttles sensor traffic per site). Only global admins
 * create, rename or delete them; anyone may list them, seeing only the groups they may view.
 */
import { ForbiddenError, NotFoundError } from '../../domain/errors.js';
import { canViewGroup, requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import type { Site, SiteCreateBody, SiteUpdateBody } from './sites.schemas.js';
import { DEFAULT_SITE_ID, type SiteRecord, type SitesStore } from './sites.store.js';

export class SitesService {
  constructor(private readonly store: SitesStore) {}

  async list(actor: Principal): Promise<Site[]> {
    return (await this.store.list()).map((site) => toWire(actor, site));
  }

  /** A one-element array, as Carbon Black answered it. */
  async get(actor: Principal, id: number): Promise<Site[]> {
    return [toWire(actor, await this.existing(id))];
  }

  async create(actor: Principal, body: SiteCreateBody): Promise<{ id: number }> {
    requireGlobalAdmin(actor, 'create sites');
    return { id: (await this.store.create(body.name)).id };
  }

  async update(actor: Principal, id: number, body: SiteUpdateBody): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'rename sites');
    const renamed = body.name === undefined ? await this.store.get(id) : await this.store.rename(id, body.name);
    if (!renamed) throw new NotFoundError(`No site with id ${id}`);
    return { result: 'success' };
  }

  async delete(actor: Principal, id: number): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'delete sites');
    if (id === DEFAULT_SITE_ID) throw new ForbiddenError('The default site cannot be deleted');
    if (!(await this.store.delete(id))) throw new NotFoundError(`No site with id ${id}`);
    return { result: 'success' };
  }

  private async existing(id: number): Promise<SiteRecord> {
    const site = await this.store.get(id);
    if (!site) throw new NotFoundError(`No site with id ${id}`);
    return site;
  }
}

function toWire(actor: Principal, site: SiteRecord): Site {
  return { id: site.id, name: site.name, group_ids: site.groupIds.filter((groupId) => canViewGroup(actor, groupId)) };
}
