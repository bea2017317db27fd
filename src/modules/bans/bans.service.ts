/**
 * Hash bans (reference admin §2). Any user may read them; only global admins ban, change or
 * unban. Unbanning disables a ban and never removes it; banning a disabled hash again re-enables
 * it. Sensors report the processes a ban stopped as processblock events, which recordBlocks
 * counts on the ban.
 */
import { ConflictError, InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { formatRecordTime } from '../../domain/record-time.js';
import type { SensorEvent } from '../../ingest/event.schemas.js';
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import type { Ban, BanCreateBody, BanDeleteBody, BanListQuery, BanUpdateBody } from './bans.schemas.js';
import type { BanQuery, BanRecord, BanStamp, BansStore, BlockTally } from './bans.store.js';

const SUCCESS = { result: 'success' } as const;

export class BansService {
  constructor(
    private readonly store: BansStore,
    private readonly now: () => number = Date.now,
  ) {}

  async list(_actor: Principal, query: BanListQuery): Promise<Ban[]> {
    const filter = parseFilter(query.filter);
    const bans = await this.store.list({ ...filter, sort: query.sort_col, ascending: query.order_asc, start: query.start, count: query.count });
    return bans.map(toWire);
  }

  async get(_actor: Principal, md5: string): Promise<Ban> {
    const ban = await this.store.get(md5.toLowerCase());
    if (!ban) throw new NotFoundError(`No ban for md5 ${md5}`);
    return toWire(ban);
  }

  /** Bans a hash, or re-enables its disabled ban; ConflictError when it is banned already. */
  async ban(actor: Principal, body: BanCreateBody): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'ban hashes');
    const md5 = body.md5hash.toLowerCase();
    const fields = { text: body.text ?? '', enabled: flag(body.enabled) ?? true };
    const stamp = this.stamp(actor);
    if (await this.store.create(md5, fields, stamp)) return SUCCESS;
    if (await this.store.change(md5, fields, stamp, false)) return SUCCESS;
    throw new ConflictError(`Ban for md5 '${md5}' already exists`);
  }

  async update(actor: Principal, md5: string, body: BanUpdateBody): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'change bans');
    const changes = { text: body.text ?? undefined, enabled: flag(body.enabled) };
    if (!(await this.store.change(md5.toLowerCase(), changes, this.stamp(actor)))) throw new NotFoundError(`No ban for md5 ${md5}`);
    return SUCCESS;
  }

  /** Disables the ban (Carbon Black's "Mark Inactive"); ConflictError when there is no enabled ban. */
  async unban(actor: Principal, md5: string, body: BanDeleteBody): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'unban hashes');
    const lower = md5.toLowerCase();
    if (!(await this.store.change(lower, { enabled: false, text: body?.text ?? '' }, this.stamp(actor), true))) {
      // Carbon Black's answer, which clients look for ("does not exist") rather than for a 404.
      throw new ConflictError(`Ban for md5 '${lower}' does not exist`);
    }
    return SUCCESS;
  }

  /**
   * Counts the processblock events of an upload the event store has committed on the bans of
   * their blocked_md5: how many, and the latest with its host.
   */
  async recordBlocks(sensor: SensorIdentity, events: readonly SensorEvent[]): Promise<void> {
    const tallies = new Map<string, BlockTally>();
    for (const event of events) {
      if (event.type !== 'processblock') continue;
      const md5 = event.blocked_md5.toLowerCase();
      const tally = tallies.get(md5);
      if (!tally) {
        tallies.set(md5, { md5, count: 1, lastMs: event.ts, sensorId: sensor.id, hostname: sensor.hostname });
      } else {
        tally.count++;
        tally.lastMs = Math.max(tally.lastMs, event.ts);
      }
    }
    await this.store.recordBlocks([...tallies.values()]);
  }

  private stamp(actor: Principal): BanStamp {
    return { userId: actor.userId, username: actor.username, atMs: this.now() };
  }
}

function flag(value: boolean | string | undefined): boolean | undefined {
  return typeof value === 'string' ? value.toLowerCase() === 'true' : value;
}

const CLAUSE = /^\s*(md5hash|enabled)\s*==\s*(\S+)\s*$/;

/** The legacy `filter` parameter: `md5hash==<md5> && enabled==true`, either clause alone or both. */
function parseFilter(filter: string | undefined): Pick<BanQuery, 'md5' | 'enabled'> {
  const parsed: Pick<BanQuery, 'md5' | 'enabled'> = {};
  if (filter === undefined || filter.trim() === '') return parsed;
  for (const clause of filter.split('&&')) {
    const [, field, value] = CLAUSE.exec(clause) ?? [];
    if (field === 'md5hash' && /^[0-9a-fA-F]{32}$/.test(value!)) parsed.md5 = value!.toLowerCase();
    else if (field === 'enabled' && /^(true|false)$/i.test(value!)) parsed.enabled = value!.toLowerCase() === 'true';
    else throw new InvalidRequestError(`filter: cannot read "${clause.trim()}"; expected md5hash==<32 hex digits> or enabled==true|false`);
  }
  return parsed;
}

function timestampOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : formatRecordTime(epochMs);
}

function toWire(ban: BanRecord): Ban {
  const lastBlockTime = timestampOrNull(ban.lastBlockMs);
  return {
    md5hash: ban.md5,
    text: ban.text,
    enabled: ban.enabled,
    username: ban.created.username,
    user_id: ban.created.userId,
    timestamp: formatRecordTime(ban.created.atMs),
    audit: ban.audit.map((entry) => ({
      username: entry.username, user_id: entry.userId, timestamp: formatRecordTime(entry.atMs), text: entry.text, enabled: entry.enabled,
    })),
    block_count: ban.blockCount,
    last_block_time: lastBlockTime,
    last_block_sensor_id: ban.lastBlockSensorId,
    last_block_hostname: ban.lastBlockHostname,
    ban_count: ban.blockCount,
    last_ban_time: lastBlockTime,
    last_ban_host: ban.lastBlockHostname,
  };
}
