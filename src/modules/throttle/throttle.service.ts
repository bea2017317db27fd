/**
 * Site throttle rules. Anyone may read them; only global admins change them (Carbon Black: "Modifying
 * bandwidth settings for sites requires Global Administrator"). The server does not shape traffic
 * itself: each sensor is sent its site's rules and enforces them (throttle-delivery.ts).
 */
import { InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import type { ThrottleCreateBody, ThrottleRule, ThrottleUpdateBody } from './throttle.schemas.js';
import type { ThrottleRuleRecord, ThrottleStore } from './throttle.store.js';

export class ThrottleService {
  constructor(private readonly store: ThrottleStore) {}

  async list(): Promise<ThrottleRule[]> {
    return (await this.store.list()).map(toWire);
  }

  async get(id: number): Promise<ThrottleRule> {
    return toWire(await this.existing(id));
  }

  async create(actor: Principal, body: ThrottleCreateBody): Promise<ThrottleRule> {
    requireGlobalAdmin(actor, 'create throttle rules');
    const fields = { siteId: body.site_id, dayOfWeek: body.day_of_week, fromHour: body.from, toHour: body.to, bytesPerSecond: body.bytes_per_second };
    return toWire(await this.store.create(checkedHours(fields)));
  }

  async update(actor: Principal, id: number, body: ThrottleUpdateBody): Promise<ThrottleRule> {
    requireGlobalAdmin(actor, 'change throttle rules');
    const current = await this.existing(id);
    const replaced = await this.store.replace(checkedHours({
      id,
      siteId: body.site_id ?? current.siteId,
      dayOfWeek: body.day_of_week ?? current.dayOfWeek,
      fromHour: body.from ?? current.fromHour,
      toHour: body.to ?? current.toHour,
      bytesPerSecond: body.bytes_per_second ?? current.bytesPerSecond,
    }));
    if (!replaced) throw new NotFoundError(`No throttle rule with id ${id}`);
    return toWire(replaced);
  }

  async delete(actor: Principal, id: number): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'delete throttle rules');
    if (!(await this.store.delete(id))) throw new NotFoundError(`No throttle rule with id ${id}`);
    return { result: 'success' };
  }

  private async existing(id: number): Promise<ThrottleRuleRecord> {
    const rule = await this.store.get(id);
    if (!rule) throw new NotFoundError(`No throttle rule with id ${id}`);
    return rule;
  }
}

function checkedHours<T extends { fromHour: number; toHour: number }>(rule: T): T {
  if (rule.fromHour >= rule.toHour) throw new InvalidRequestError(`from: the rule must start (${rule.fromHour}) before it ends (to ${rule.toHour})`);
  return rule;
}

export function toWire(rule: ThrottleRuleRecord): ThrottleRule {
  return {
    id: rule.id, site_id: rule.siteId, day_of_week: rule.dayOfWeek, from: rule.fromHour, to: rule.toHour, bytes_per_second: rule.bytesPerSecond,
  };
}
