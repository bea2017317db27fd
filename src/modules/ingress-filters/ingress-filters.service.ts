/**
 * Ingress filters: which events are dropped before they are stored. Any user may read them; only
 * global admins create, change or delete them. The pipeline reads them compiled (compiled()), and
 * reports the processes they matched (recordProcessCounts) for hit_rate.
 *
 * The compiled filters are cached until a write here, and at most `reloadMs`: another server on
 * the database may have changed them (docs/adr/0022-jobs-across-servers.md).
 */
import { randomUUID } from 'node:crypto';
import { NotFoundError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { compileIngressFilter, compileIngressFilters, type CompiledIngressFilter } from '../../ingest/ingress-filter.js';
import type { IngressHitRates, ProcessCounts } from '../../ingest/ingress-filter-metrics.js';
import { INGRESS_FILTER_DEFAULTS } from './ingress-filters.defaults.js';
import {
  IngressFilterSettings,
  type IngressFilter,
  type IngressFilterCreateBody,
  type IngressFilterInput,
  type IngressFilterUpdateBody,
} from './ingress-filters.schemas.js';
import type { IngressFilterRecord, IngressFiltersStore, WriteStamp } from './ingress-filters.store.js';

const SETTING_KEYS = Object.keys(IngressFilterSettings.properties) as (keyof IngressFilterSettings)[];

/** "Can be any string, but should contain only alphanumeric digits and dashes (e.g. uuid)" (cbapi). */
const CLIENT_ID = /^[A-Za-z0-9-]{1,64}$/;

export class IngressFiltersService {
  /** The compiled filters, until the next write or reload; a promise so concurrent callers share one load. */
  private compiledFilters: Promise<readonly CompiledIngressFilter[]> | undefined;
  private loadedMs = 0;

  constructor(
    private readonly store: IngressFiltersStore,
    private readonly hitRates: IngressHitRates,
    private readonly reloadMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  async list(_actor: Principal): Promise<IngressFilter[]> {
    return (await this.store.list()).map((filter) => this.toWire(filter));
  }

  async get(_actor: Principal, id: string): Promise<IngressFilter> {
    const filter = await this.store.get(id);
    if (!filter) throw new NotFoundError(`No ingress filter with id ${id}`);
    return this.toWire(filter);
  }

  /** Answers the new ids in the order given; a client's id is kept when it is a plain one. */
  async create(actor: Principal, body: IngressFilterCreateBody): Promise<string[]> {
    requireGlobalAdmin(actor, 'create ingress filters');
    const filters = body.map((input) => {
      const id = typeof input.id === 'string' && CLIENT_ID.test(input.id) ? input.id : randomUUID();
      const settings = { ...INGRESS_FILTER_DEFAULTS, ...settingsGiven(input), name: input.name };
      // Compiling refuses an invalid regex (400 naming the field) before anything is stored.
      compileIngressFilter({ id, settings });
      return { id, settings };
    });
    const created = await this.afterWrite(this.store.create(filters, stamp(actor)));
    return created.map((filter) => filter.id);
  }

  /** Changes the fields given; id and the read-only fields of the body are ignored. */
  async update(actor: Principal, id: string, body: IngressFilterUpdateBody): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'change ingress filters');
    const stored = await this.store.get(id);
    if (!stored) throw new NotFoundError(`No ingress filter with id ${id}`);
    const changes = settingsGiven(body, stored.settings);
    compileIngressFilter({ id, settings: { ...stored.settings, ...changes } }); // refuses an invalid regex
    if (!(await this.afterWrite(this.store.update(id, changes, stamp(actor))))) {
      throw new NotFoundError(`No ingress filter with id ${id}`);
    }
    return { result: 'success' };
  }

  async delete(actor: Principal, id: string): Promise<{ result: 'success' }> {
    requireGlobalAdmin(actor, 'delete ingress filters');
    if (!(await this.afterWrite(this.store.delete(id)))) throw new NotFoundError(`No ingress filter with id ${id}`);
    this.hitRates.forget(id);
    return { result: 'success' };
  }

  /** Every filter the pipeline has a use for, compiled, highest priority first; cached until a write, or `reloadMs`. */
  compiled(): Promise<readonly CompiledIngressFilter[]> {
    if (!this.compiledFilters || this.now() - this.loadedMs >= this.reloadMs) {
      this.loadedMs = this.now();
      const loading = this.store.list().then(compileIngressFilters);
      // A failed load is not cached: the next caller tries again.
      loading.catch(() => {
        if (this.compiledFilters === loading) this.compiledFilters = undefined;
      });
      this.compiledFilters = loading;
    }
    return this.compiledFilters;
  }

  /** The pipeline's per-filter counts of new processes measured and matched, by filter id. */
  recordProcessCounts(counts: ReadonlyMap<string, ProcessCounts>): void {
    this.hitRates.record(counts);
  }

  /**
   * Drops the compiled filters once a write has settled (committed or not): a load begun before
   * the write may have read the old filters.
   */
  private async afterWrite<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.compiledFilters = undefined;
    }
  }

  private toWire(filter: IngressFilterRecord): IngressFilter {
    return {
      id: filter.id,
      ...filter.settings,
      command_line_filters: filter.settings.cmdline_filters,
      hit_rate: this.hitRates.rate(filter.id),
      create_timestamp: filter.createdAt,
      modify_timestamp: filter.modifiedAt,
      create_user_id: filter.createdBy,
      modify_user_id: filter.modifiedBy,
    };
  }
}

function stamp(actor: Principal): WriteStamp {
  return { userId: actor.userId, at: new Date().toISOString() };
}

/** The writable fields the body carries, and nothing else; `stored` is the filter being changed, if any. */
function settingsGiven(body: IngressFilterInput, stored?: IngressFilterSettings): Partial<IngressFilterSettings> {
  const settings: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    if (body[key] !== undefined) settings[key] = body[key];
  }
  const cmdline = commandLineFilters(body, stored);
  if (cmdline !== undefined) settings.cmdline_filters = cmdline;
  return settings as Partial<IngressFilterSettings>;
}

/**
 * cbapi's yaml calls cmdline_filters command_line_filters. Both are answered, so a body may carry
 * both as read back; then the one that differs from the stored value is the change.
 */
function commandLineFilters(
  { cmdline_filters: given, command_line_filters: alias }: IngressFilterInput,
  stored: IngressFilterSettings | undefined,
): string[] | undefined {
  if (given === undefined || alias === undefined) return given ?? alias;
  return stored !== undefined && sameValues(given, stored.cmdline_filters) ? alias : given;
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
