/**
 * Alerts (reference admin §3): searched with the query language at /api/v1/alert and
 * /api/v2/alert, triaged one at a time or in bulk by ids or by query. A caller sees the alerts of
 * the sensor groups they may view (binary alerts belong to none and are seen by all); only global
 * admins change alerts. A status change without an assignee records the caller as the one who
 * triaged it (the search reference's meaning of assigned_to).
 */
import { InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { canViewGroup, requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { canonicalEnumValue, withQueryErrors, type SearchParams } from '../../query/index.js';
import { ALERT_STATUSES as STATUS_VALUES } from '../../query/fields.records.js';
import { facetEntries, readRecordSearch, type RecordSearchRules } from '../../query/record-search.js';
import { watchlistSearchParams } from '../watchlists/watchlist-query.js';
import { alertToWire as toWire } from './alert-wire.js';
import { ALERT_FACETS, ALERT_SORTS, type AlertVisibility } from './alert-query.js';
import type { Alert, AlertBulkBody, AlertSearchReply, AlertUpdateBody } from './alerts.schemas.js';
import { ALERT_STATUSES, type AlertChanger, type AlertChanges, type AlertSelection, type AlertStatus, type AlertsStore } from './alerts.store.js';

const SUCCESS = { result: 'success' } as const;
const FACET_LIMIT = 200;

const SEARCH_RULES: Omit<RecordSearchRules, 'now'> = {
  index: 'alert',
  defaultRows: 10,
  // /api/info's maxRowsSolrReportQuery; cbapi pages alerts 500 at a time.
  maxRows: 10_000,
  sortable: Object.keys(ALERT_SORTS),
  defaultSort: [{ field: 'created_time', descending: true }],
  facetable: Object.keys(ALERT_FACETS),
  defaultFacets: ['status', 'alert_type', 'feed_name', 'watchlist_name', 'hostname', 'username', 'process_name', 'assigned_to', 'group'],
};

export class AlertsService {
  constructor(
    private readonly store: AlertsStore,
    /** Bulk changes walk many alerts: the server runs them on their own thread (alert-changes.threaded.ts). */
    private readonly bulk: AlertChanger = store,
    private readonly now: () => number = Date.now,
  ) {}

  async search(actor: Principal, params: SearchParams): Promise<AlertSearchReply> {
    const started = performance.now();
    const search = withQueryErrors(() => readRecordSearch(params, { ...SEARCH_RULES, now: this.now() }));
    const visibility = visibleGroups(actor);
    const page = await this.store.search(search.predicate, visibility, search.sort, search.start, search.rows);
    const facets: AlertSearchReply['facets'] = {};
    for (const field of search.facets) {
      facets[field] = facetEntries(await this.store.facet(search.predicate, visibility, field, FACET_LIMIT), page.total);
    }
    return {
      results: page.alerts.map(toWire),
      total_results: page.total,
      start: search.start,
      elapsed: (performance.now() - started) / 1000,
      terms: search.terms,
      facets,
      highlights: [],
    };
  }

  /** Changes one alert's status and/or assignee; answers the alert as it now is. */
  async update(actor: Principal, uniqueId: string, body: AlertUpdateBody): Promise<Alert> {
    requireGlobalAdmin(actor, 'change alerts');
    const changes = triage(actor, body.status, body.assigned_to);
    if ((await this.store.change({ uniqueIds: [uniqueId] }, 'all', changes, this.now())) === 0) {
      throw new NotFoundError(`No alert with unique_id ${uniqueId}`);
    }
    return toWire((await this.store.get(uniqueId, 'all'))!);
  }

  /**
   * POST /api/v1/alerts: one change over the alerts named by alert_ids and/or matching query
   * (both given: the alerts named that match). A query with rows (and start, sort) changes only
   * that page of its matches.
   */
  async bulkUpdate(actor: Principal, body: AlertBulkBody): Promise<typeof SUCCESS> {
    requireGlobalAdmin(actor, 'change alerts');
    if (body.alert_ids === undefined && body.query === undefined) {
      throw new InvalidRequestError('Name the alerts to change: alert_ids, or a query');
    }
    const changes: AlertChanges = {
      ...triage(actor, body.requested_status, body.assigned_to, body.set_ignored !== undefined),
      ...(body.set_ignored === undefined ? {} : { reportIgnored: body.set_ignored }),
    };
    const selection: AlertSelection = { ...(body.alert_ids ? { uniqueIds: body.alert_ids } : {}) };
    if (body.query !== undefined) {
      const params = watchlistSearchParams(body.query);
      const search = withQueryErrors(() => readRecordSearch(params, { ...SEARCH_RULES, maxRows: Number.MAX_SAFE_INTEGER, now: this.now() }));
      selection.predicate = search.predicate;
      if (params.rows !== undefined) selection.page = { sort: search.sort, start: search.start, rows: search.rows };
    }
    await this.bulk.change(selection, 'all', changes, this.now());
    return SUCCESS;
  }
}

function triage(actor: Principal, status: string | undefined, assignedTo: string | null | undefined, other = false): AlertChanges {
  if (status === undefined && assignedTo === undefined && !other) {
    throw new InvalidRequestError('Nothing to change: give a status (requested_status), assigned_to or set_ignored');
  }
  const changes: AlertChanges = {};
  if (status !== undefined) changes.status = canonicalStatus(status);
  if (assignedTo !== undefined) changes.assignedTo = assignedTo === '' ? null : assignedTo;
  else if (status !== undefined) changes.assignedTo = actor.username;
  return changes;
}

function canonicalStatus(text: string): AlertStatus {
  const canonical = canonicalEnumValue(STATUS_VALUES, text);
  const status = ALERT_STATUSES.find((s) => s.toLowerCase() === canonical);
  if (!status) throw new InvalidRequestError(`status: expected one of ${ALERT_STATUSES.join(', ')}, not "${text}"`);
  return status;
}

function visibleGroups(actor: Principal): AlertVisibility {
  if (actor.globalAdmin) return 'all';
  return [...actor.groupAccess.keys()].filter((groupId) => canViewGroup(actor, groupId));
}
