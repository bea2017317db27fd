/**
 * The scoring fields of an alert (reference admin §3.3). Carbon Black combined the report's
 * score, the feed's rating and the sensor group's criticality into alert_severity; the recorded
 * alerts (75 → 50.625 and 90 → 60.75 at rating 3, criticality 3) fit
 * score × (rating × 0.3) × (criticality / 4), which is used here, capped to 0-100.
 */

/** What Carbon Black gave watchlist alerts, which have no report: a fixed score and rating. */
export const WATCHLIST_SCORE = 75;
export const DEFAULT_FEED_RATING = 3;
/** A sensor group's alert_criticality unless set (reference core §7.2); binaries have no group. */
export const DEFAULT_CRITICALITY = 3;
export const IOC_CONFIDENCE = 0.5;
export const WATCHLIST_FEED_NAME = 'My Watchlists';

export function alertSeverity(score: number, feedRating: number, criticality: number): number {
  const severity = score * (feedRating * 0.3) * (criticality / 4);
  return Math.min(100, Math.max(0, Math.round(severity * 1000) / 1000));
}

export type DocumentKind = 'process' | 'binary';

/** Watchlists and query IOCs search; the other IOCs are compared with data as it arrives. */
export function alertType(iocType: string, kind: DocumentKind): string {
  return `watchlist.hit.${iocType === 'query' ? 'query' : 'ingress'}.${kind}`;
}
