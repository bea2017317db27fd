/**
 * Threat reports (reference admin §4.5): searched with the query language over their own fields,
 * read one at a time under their feed, and ignored or un-ignored in bulk by ids or by query. An
 * ignored report's hits raise no alerts. Anyone may read; only global admins change is_ignored.
 */
import { InvalidRequestError, NotFoundError } from '../../domain/errors.js';
import { requireGlobalAdmin, type Principal } from '../../domain/permissions.js';
import { documentTime } from '../../domain/wire-time.js';
import { analyzeParams, withQueryErrors, type SearchParams } from '../../query/index.js';
import { facetEntries, readRecordSearch, type RecordSearch } from '../../query/record-search.js';
import { watchlistSearchParams } from '../watchlists/watchlist-query.js';
import { THREAT_REPORT_SORT_FIELDS } from './threat-report-query.js';
import type { ThreatReport, ThreatReportSearchReply, ThreatReportUpdateBody } from './threat-reports.schemas.js';
import { THREAT_REPORT_FACETS, type ThreatReportRecord, type ThreatReportsStore } from './threat-reports.store.js';

const SUCCESS = { result: 'success' } as const;
const FACET_LIMIT = 200;

export class ThreatReportsService {
  constructor(
    private readonly store: ThreatReportsStore,
    private readonly now: () => number = Date.now,
  ) {}

  async search(_actor: Principal, params: SearchParams): Promise<ThreatReportSearchReply> {
    const started = performance.now();
    const search = withQueryErrors(() => readRecordSearch(params, {
      index: 'threat_report',
      now: this.now(),
      defaultRows: 10,
      maxRows: 100_000,
      sortable: THREAT_REPORT_SORT_FIELDS,
      defaultSort: [{ field: 'severity_score', descending: true }],
      facetable: Object.keys(THREAT_REPORT_FACETS),
      defaultFacets: ['feed_name'],
    }));
    const page = await this.store.search(search.predicate, search.sort, search.start, search.rows);
    return {
      results: page.reports.map(toWire),
      total_results: page.total,
      start: search.start,
      elapsed: (performance.now() - started) / 1000,
      terms: search.terms,
      facets: await this.facets(search, page.total),
      highlights: [],
    };
  }

  async get(_actor: Principal, feedId: number, reportId: string): Promise<ThreatReport> {
    const report = await this.store.get(feedId, reportId);
    if (!report) throw new NotFoundError(`Feed ${feedId} has no report ${reportId}`);
    return toWire(report);
  }

  /**
   * Sets is_ignored on the reports named by ids, or on those a query matches. One report by id
   * answers the report as it now is (cbapi then takes it for the object's new state); otherwise
   * {"result": "success"}.
   */
  async update(actor: Principal, body: ThreatReportUpdateBody): Promise<ThreatReport | typeof SUCCESS> {
    requireGlobalAdmin(actor, 'change threat reports');
    const ignored = body.updates.is_ignored;
    if (body.ids !== undefined) {
      const ids = new Map(Object.entries(body.ids).map(([feedId, reportIds]) => [Number(feedId), reportIds]));
      if ((await this.store.setIgnoredByIds(ids, ignored)) === 0) throw new NotFoundError('None of the reports named exists');
      const named = [...ids].flatMap(([feedId, reportIds]) => reportIds.map((reportId) => ({ feedId, reportId })));
      return named.length === 1 ? this.get(actor, named[0]!.feedId, named[0]!.reportId) : SUCCESS;
    }
    if (body.query === undefined) throw new InvalidRequestError('Name the reports to change: ids, or a query');
    const query = body.query;
    const analyzed = withQueryErrors(() => analyzeParams(watchlistSearchParams(query), { index: 'threat_report', now: this.now() }));
    await this.store.setIgnored(analyzed.predicate, ignored);
    return SUCCESS;
  }

  private async facets(search: RecordSearch, total: number): Promise<ThreatReportSearchReply['facets']> {
    const facets: ThreatReportSearchReply['facets'] = {};
    for (const field of search.facets) {
      facets[field] = facetEntries(await this.store.facet(search.predicate, field, FACET_LIMIT), total);
    }
    return facets;
  }
}

function toWire(report: ThreatReportRecord): ThreatReport {
  return {
    id: report.reportId,
    feed_id: report.feedId,
    feed_name: report.feedName,
    feed_category: report.feedCategory,
    title: report.title,
    description: report.description,
    link: report.link,
    score: report.score,
    severity_score: report.score,
    timestamp: report.timestampS,
    create_time: documentTime(report.createdMs),
    update_time: documentTime(report.updatedMs),
    is_ignored: report.isIgnored,
    is_deleted: report.isDeleted,
    tags: report.tags,
    iocs: report.iocs,
  };
}
