/**
 * Times in the formats Carbon Black's documents carry them (reference admin "Timestamp formats",
 * core §1). Solr-backed documents (processes, binaries) use ISO-8601 UTC with a `Z`, and the real
 * server dropped trailing zeros of the milliseconds ("…37.19Z", "…02Z"); clients parse both.
 */

/** `2017-02-01T03:52:34.137Z`, `2019-11-19T12:25:37.19Z`, `2013-08-22T15:00:02Z`. */
export function documentTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

/** Whole seconds, as digital-signature times are given: `2016-04-12T09:21:00Z`. */
export function documentTimeSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Microseconds and a `Z`, as a watchlist's search_timestamp reads (`2018-02-06T18:40:06.467000Z`);
 * Vigil keeps milliseconds, so the last three digits are zeros.
 */
export function documentTimeMicros(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}
