/**
 * Actions of a watchlist or a feed: what happens on a hit (reference admin §1.4). Vigil acts on
 * every type: the alert action (3) raises an alert on each newly tagged process or binary, and
 * email (0), syslog (1) and http_post (2) send a notification of it through the outbox
 * (modules/notifications, docs/adr/0023-notification-outbox.md). The owner's
 * service checks that the owner exists and who may change it.
 */
import { ConflictError, NotFoundError } from '../../domain/errors.js';
import type { ActionCreateBody, ActionUpdateBody, DetectionAction } from './detection-actions.schemas.js';
import { ACTION_TYPES, type ActionOwner, type ActionRecord, type DetectionActionsStore } from './detection-actions.store.js';

const SUCCESS = { result: 'success' } as const;

export class DetectionActions {
  constructor(private readonly store: DetectionActionsStore) {}

  async list(owner: ActionOwner): Promise<DetectionAction[]> {
    return (await this.store.list(owner)).map(toWire);
  }

  async create(owner: ActionOwner, body: ActionCreateBody): Promise<DetectionAction> {
    return toWire(await this.store.create(owner, body.action_type, actionData(body.action_data)));
  }

  async update(owner: ActionOwner, id: number, body: ActionUpdateBody): Promise<DetectionAction> {
    const changes = {
      ...(body.action_type === undefined ? {} : { actionType: body.action_type }),
      ...('action_data' in body ? { actionData: actionData(body.action_data) } : {}),
    };
    const updated = await this.store.update(owner, id, changes);
    if (!updated) throw new NotFoundError(`The ${owner.kind} has no action with id ${id}`);
    return toWire(updated);
  }

  async delete(owner: ActionOwner, id: number): Promise<typeof SUCCESS> {
    if (!(await this.store.delete(owner, id))) throw new NotFoundError(`The ${owner.kind} has no action with id ${id}`);
    return SUCCESS;
  }

  /** Every action type, on or off. */
  async types(owner: ActionOwner) {
    const actions = await this.store.list(owner);
    return ACTION_TYPES.map((type, code) => {
      const action = actions.find((a) => a.actionType === code);
      return { action_type: code, type, enabled: action !== undefined, action_data: action?.actionData ?? null };
    });
  }

  /** Turns an action type on (adding it without data) or off (removing it); a no-op when already so. */
  async setType(owner: ActionOwner, actionType: number, enabled: boolean): Promise<typeof SUCCESS> {
    if (!enabled) {
      await this.store.deleteType(owner, actionType);
      return SUCCESS;
    }
    try {
      await this.store.create(owner, actionType, null);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
    return SUCCESS;
  }
}

/** Clients send text (often JSON text); anything else is kept as its JSON. */
function actionData(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function toWire(action: ActionRecord): DetectionAction {
  return {
    id: action.id,
    action_type: action.actionType,
    action_data: action.actionData,
    watchlist_id: action.owner.kind === 'watchlist' ? action.owner.id : -1,
    group_id: action.owner.id,
  };
}
