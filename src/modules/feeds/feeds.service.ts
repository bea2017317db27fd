/**
 * Feeds (reference admin §4): added from a feed_url, whose cbfeeds file the server downloads at
 * once to learn the feed's name and reports, and downloads again at each synchronization.
 * Anyone may read feeds; only global admins add, change, delete or synchronize them. A feed that
 * cannot be fetched or read is refused with a 4xx saying why: 400 feed_unreachable, 408
 * feed_timeout, 409 feed_malformed or feed_too_large (the real server answered 409 for a feed
 * that was not JSON, and 408 on a timeout).
 */
import { ChangeListeners } from '../../domain/change-listeners.js';
import { ConflictError, DomainError, InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import type { ActionCreateBody, ActionUpdateBody, DetectionAction } from '../watchlists/detection-actions.schemas.js';
import type { DetectionActions } from '../watchlists/detection-actions.service.js';
import type { ActionOwner } from '../watchlists/detection-actions.store.js';
import { FeedFormatError, parseFeed, type ParsedFeed } from './cbfeed.js';
import { downloadFeed, FEED_URL_SCHEMES, FeedDownloadError } from './feed-download.js';
import type { Feed, FeedCreateBody, FeedUpdateBody, SynchronizeBody } from './feeds.schemas.js';
import type { FeedRecord, FeedSettings, FeedsStore } from './feeds.store.js';

const SUCCESS = { result: 'success' } as const;

export type SyncReply = typeof SUCCESS & { reports_added: number; reports_updated: number; reports_deleted: number };

export interface FeedDownloadLimits {
  maxBytes: number;
  timeoutMs: number;
}

export class FeedsService {
  constructor(
    private readonly store: FeedsStore,
    private readonly detectionActions: DetectionActions,
    private readonly limits: FeedDownloadLimits,
    private readonly now: () => number = Date.now,
  ) {}

  private readonly changes = new ChangeListeners();

  /** Told after a change the detection matcher must act on (new searches or IOCs to run over existing data). */
  onChange(listener: () => void): void {
    this.changes.add(listener);
  }

  async list(_actor: Principal): Promise<Feed[]> {
    return (await this.store.list()).map(toWire);
  }

  async get(_actor: Principal, id: number): Promise<Feed> {
    return toWire(await this.existing(id));
  }

  /** Downloads the feed, then stores it with its reports; answers the new record. */
  async create(actor: Principal, body: FeedCreateBody): Promise<Feed> {
    requireGlobalAdmin(actor, 'add feeds');
    const settings: FeedSettings = {
      feedUrl: checkedUrl(body.feed_url),
      enabled: body.enabled ?? true,
      useProxy: body.use_proxy ?? null,
      validateServerCert: body.validate_server_cert ?? null,
      username: body.username ?? null,
      password: body.password || null,
      sslClientCrt: body.ssl_client_crt ?? null,
      sslClientKey: body.ssl_client_key || null,
      localRating: body.local_rating ?? null,
      order: body.order ?? null,
    };
    const download = await this.download(settings);
    const created = await this.store.create(settings, download, this.now());
    this.changes.notify();
    return toWire(created.feed);
  }

  async update(actor: Principal, id: number, body: FeedUpdateBody): Promise<Feed> {
    requireGlobalAdmin(actor, 'change feeds');
    await this.existing(id);
    const changes: Partial<FeedSettings> = {
      feedUrl: body.feed_url === undefined ? undefined : checkedUrl(body.feed_url),
      enabled: body.enabled,
      useProxy: body.use_proxy,
      validateServerCert: body.validate_server_cert,
      username: body.username,
      // Secrets are never shown, so a record sent back as read carries null: keep them then.
      password: body.password === '' ? null : body.password ?? undefined,
      sslClientCrt: body.ssl_client_crt,
      sslClientKey: body.ssl_client_key === '' ? null : body.ssl_client_key ?? undefined,
      localRating: body.local_rating,
      order: body.order,
    };
    const updated = await this.store.update(id, changes);
    if (!updated) throw new NotFoundError(`No feed with id ${id}`);
    this.changes.notify();
    return toWire(updated);
  }

  async delete(actor: Principal, id: number): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'delete feeds');
    if (!(await this.store.delete(id))) throw new NotFoundError(`No feed with id ${id}`);
    this.changes.notify();
    return SUCCESS;
  }

  /**
   * Downloads the feed again. Incremental: new reports and those with a newer timestamp. Full:
   * every report, and those no longer in the feed are marked deleted.
   */
  async synchronize(actor: Principal, id: number, body: SynchronizeBody): Promise<SyncReply> {
    requireGlobalAdmin(actor, 'synchronize feeds');
    const feed = await this.existing(id);
    if (!feed.enabled) throw new ConflictError('Cannot synchronize a disabled feed');
    const counts = await this.sync(feed, body?.full_sync ?? false);
    return { ...SUCCESS, reports_added: counts.added, reports_updated: counts.updated, reports_deleted: counts.deleted };
  }

  /**
   * The scheduled synchronization (Carbon Black re-read its feeds on a timer): every enabled feed,
   * fully, one after another. A feed that cannot be read keeps its reports; its failure is passed
   * to `onFailure` and the others go on.
   */
  async synchronizeAll(onFailure: (feedId: number, error: unknown) => void): Promise<void> {
    for (const feed of await this.store.list()) {
      if (!feed.enabled) continue;
      try {
        await this.sync(feed, true);
      } catch (error) {
        onFailure(feed.id, error);
      }
    }
  }

  private async sync(feed: FeedRecord, full: boolean): Promise<{ added: number; updated: number; deleted: number }> {
    const counts = await this.store.sync(feed.id, await this.download(feed), full, this.now());
    if (!counts) throw new NotFoundError(`No feed with id ${feed.id}`);
    this.changes.notify();
    return counts;
  }

  /** Data-sharing requirements: Vigil's feeds need none. */
  async requirements(_actor: Principal, id: number): Promise<string[]> {
    await this.existing(id);
    return [];
  }

  async actions(_actor: Principal, id: number): Promise<DetectionAction[]> {
    return this.detectionActions.list(await this.owner(id));
  }

  async createAction(actor: Principal, id: number, body: ActionCreateBody): Promise<DetectionAction> {
    requireGlobalAdmin(actor, 'change feed actions');
    return this.detectionActions.create(await this.owner(id), body);
  }

  async updateAction(actor: Principal, id: number, actionId: number, body: ActionUpdateBody): Promise<DetectionAction> {
    requireGlobalAdmin(actor, 'change feed actions');
    return this.detectionActions.update(await this.owner(id), actionId, body);
  }

  async deleteAction(actor: Principal, id: number, actionId: number): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'change feed actions');
    return this.detectionActions.delete(await this.owner(id), actionId);
  }

  private async download(settings: FeedSettings): Promise<ParsedFeed> {
    try {
      const content = await downloadFeed(settings.feedUrl, {
        maxBytes: this.limits.maxBytes,
        timeoutMs: this.limits.timeoutMs,
        validateServerCert: settings.validateServerCert ?? true,
        username: settings.username,
        password: settings.password,
        clientCert: settings.sslClientCrt,
        clientKey: settings.sslClientKey,
      });
      return parseFeed(content, this.now());
    } catch (error) {
      if (error instanceof FeedFormatError) throw new DomainError('conflict', error.message, 'feed_malformed');
      if (!(error instanceof FeedDownloadError)) throw error;
      if (error.failure === 'timeout') throw new DomainError('timeout', error.message, 'feed_timeout');
      if (error.failure === 'too_large') throw new DomainError('conflict', error.message, 'feed_too_large');
      throw new DomainError('invalid_request', error.message, 'feed_unreachable');
    }
  }

  private async owner(id: number): Promise<ActionOwner> {
    await this.existing(id);
    return { kind: 'feed', id };
  }

  private async existing(id: number): Promise<FeedRecord> {
    const feed = await this.store.get(id);
    if (!feed) throw new NotFoundError(`No feed with id ${id}`);
    return feed;
  }
}

function checkedUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidRequestError(`feed_url: "${text}" is not a URL`);
  }
  if (!FEED_URL_SCHEMES.includes(url.protocol)) throw new InvalidRequestError('feed_url: feeds are read over http, https or file');
  return text;
}

function toWire(feed: FeedRecord): Feed {
  return {
    id: feed.id,
    ...feed.info,
    feed_url: feed.feedUrl,
    local_rating: feed.localRating,
    enabled: feed.enabled,
    use_proxy: feed.useProxy,
    validate_server_cert: feed.validateServerCert,
    username: feed.username,
    password: null,
    ssl_client_crt: feed.sslClientCrt,
    ssl_client_key: null,
    manually_added: feed.manuallyAdded,
    order: feed.order,
    requires: null,
    requires_who: null,
    requires_what: null,
  };
}
