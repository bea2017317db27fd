/**
 * Watchlists (reference admin §1): saved process or binary searches that the matcher runs as
 * events arrive and on schedule. Anyone may read them; only global admins create, change or
 * delete them. A search that cannot be read is refused when it is saved (400
 * query_malformed_syntax), not discovered later by the matcher. A read-only watchlist can be
 * enabled, disabled and given actions, nothing more.
 */
import { ChangeListeners } from '../../domain/change-listeners.js';
import { ForbiddenError, InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { formatRecordTime } from '../../domain/record-time.js';
import { documentTimeMicros } from '../../domain/wire-time.js';
import type { ActionCreateBody, ActionUpdateBody, DetectionAction } from './detection-actions.schemas.js';
import type { DetectionActions } from './detection-actions.service.js';
import type { ActionOwner } from './detection-actions.store.js';
import { checkWatchlistQuery } from './watchlist-query.js';
import type { Watchlist, WatchlistCreateBody, WatchlistUpdateBody } from './watchlists.schemas.js';
import type { WatchlistFields, WatchlistRecord, WatchlistsStore } from './watchlists.store.js';

const SUCCESS = { result: 'success' } as const;

export class WatchlistsService {
  constructor(
    private readonly store: WatchlistsStore,
    private readonly detectionActions: DetectionActions,
    private readonly now: () => number = Date.now,
  ) {}

  private readonly changes = new ChangeListeners();

  /** Told after a change the detection matcher must act on (new searches or IOCs to run over existing data). */
  onChange(listener: () => void): void {
    this.changes.add(listener);
  }

  async list(_actor: Principal): Promise<Watchlist[]> {
    return (await this.store.list()).map(toWire);
  }

  async get(_actor: Principal, id: number): Promise<Watchlist> {
    return toWire(await this.existing(id));
  }

  async create(actor: Principal, body: WatchlistCreateBody): Promise<{ id: number }> {
    requireGlobalAdmin(actor, 'create watchlists');
    const fields: WatchlistFields = {
      name: body.name,
      description: body.description ?? null,
      searchQuery: body.search_query,
      indexType: body.index_type ?? 'events',
      enabled: body.enabled ?? true,
      readonly: body.readonly ?? false,
      groupId: body.group_id ?? -1,
      allianceId: body.alliance_id ?? null,
      fromAlliance: body.from_alliance ?? false,
    };
    checkWatchlistQuery(fields.searchQuery, fields.indexType, this.now());
    const created = await this.store.create(fields, this.now(), requestedId(body.id));
    this.changes.notify();
    return { id: created.id };
  }

  async update(actor: Principal, id: number, body: WatchlistUpdateBody): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'change watchlists');
    const current = await this.existing(id);
    const changes: Partial<WatchlistFields> = {
      name: body.name,
      description: body.description,
      searchQuery: body.search_query,
      indexType: body.index_type,
      enabled: body.enabled,
      readonly: body.readonly,
      groupId: body.group_id,
      allianceId: body.alliance_id,
      fromAlliance: body.from_alliance,
    };
    if (current.readonly) {
      const changed = (Object.keys(changes) as (keyof WatchlistFields)[])
        .filter((field) => field !== 'enabled' && changes[field] !== undefined && changes[field] !== current[field]);
      if (changed.length > 0) throw new ForbiddenError(`Watchlist ${id} is read-only: only enabled can change`);
    }
    if (changes.searchQuery !== undefined || changes.indexType !== undefined) {
      checkWatchlistQuery(changes.searchQuery ?? current.searchQuery, changes.indexType ?? current.indexType, this.now());
    }
    await this.store.update(id, changes);
    this.changes.notify();
    return SUCCESS;
  }

  async delete(actor: Principal, id: number): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'delete watchlists');
    if ((await this.existing(id)).readonly) throw new ForbiddenError(`Watchlist ${id} is read-only and cannot be deleted`);
    await this.store.delete(id);
    this.changes.notify();
    return SUCCESS;
  }

  async actions(_actor: Principal, id: number): Promise<DetectionAction[]> {
    return this.detectionActions.list(await this.owner(id));
  }

  async createAction(actor: Principal, id: number, body: ActionCreateBody): Promise<DetectionAction> {
    requireGlobalAdmin(actor, 'change watchlist actions');
    return this.detectionActions.create(await this.owner(id), body);
  }

  async updateAction(actor: Principal, id: number, actionId: number, body: ActionUpdateBody): Promise<DetectionAction> {
    requireGlobalAdmin(actor, 'change watchlist actions');
    return this.detectionActions.update(await this.owner(id), actionId, body);
  }

  async deleteAction(actor: Principal, id: number, actionId: number): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'change watchlist actions');
    return this.detectionActions.delete(await this.owner(id), actionId);
  }

  async actionTypes(_actor: Principal, id: number) {
    return this.detectionActions.types(await this.owner(id));
  }

  async setActionType(actor: Principal, id: number, actionType: number, enabled: boolean): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'change watchlist actions');
    return this.detectionActions.setType(await this.owner(id), actionType, enabled);
  }

  /** The watchlists the matcher runs. */
  async enabledWatchlists(): Promise<WatchlistRecord[]> {
    return (await this.store.list()).filter((watchlist) => watchlist.enabled);
  }

  private async owner(id: number): Promise<ActionOwner> {
    await this.existing(id);
    return { kind: 'watchlist', id };
  }

  private async existing(id: number): Promise<WatchlistRecord> {
    const watchlist = await this.store.get(id);
    if (!watchlist) throw new NotFoundError(`No watchlist with id ${id}`);
    return watchlist;
  }
}

function requestedId(id: WatchlistCreateBody['id']): number | undefined {
  if (id === undefined || id === null || id === '') return undefined;
  const value = typeof id === 'number' ? id : /^\d{1,10}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > 2 ** 31 - 1) {
    throw new InvalidRequestError('id: expected a positive whole number, or null for a new id');
  }
  return value;
}

function toWire(watchlist: WatchlistRecord): Watchlist {
  return {
    id: String(watchlist.id),
    name: watchlist.name,
    description: watchlist.description,
    search_query: watchlist.searchQuery,
    index_type: watchlist.indexType,
    enabled: watchlist.enabled,
    readonly: watchlist.readonly,
    group_id: watchlist.groupId,
    alliance_id: watchlist.allianceId,
    from_alliance: watchlist.fromAlliance,
    date_added: formatRecordTime(watchlist.dateAddedMs),
    last_hit: watchlist.lastHitMs === null ? null : formatRecordTime(watchlist.lastHitMs),
    last_hit_count: watchlist.lastHitCount,
    total_hits: String(watchlist.totalHits),
    total_tags: String(watchlist.totalTags),
    search_timestamp: documentTimeMicros(watchlist.searchMs ?? 0),
  };
}
