/**
 * A threat report as a feed delivers it (reference admin §4.3) and as the report store keeps it.
 * The report vocabulary lives with the reports rather than with the feed file parser because the
 * report store, detection and the feed parser (feeds/cbfeed.ts) all speak it, and the feeds module
 * already depends on this one (feeds.store syncs each feed's reports into the report store).
 */
import type { IndexType } from '../watchlists/watchlists.store.js';

export const VALUE_IOC_TYPES = ['md5', 'sha256', 'ipv4', 'ipv6', 'dns', 'ja3', 'ja3s'] as const;
export type ValueIocType = (typeof VALUE_IOC_TYPES)[number];

export interface IocValue {
  type: ValueIocType;
  /** Normalized as events are. */
  value: string;
  /** Addresses as fixed-width hex, for range searches. */
  addressHex?: string;
}

export interface QueryIoc {
  index_type: IndexType;
  search_query: string;
}

export interface FeedReport {
  id: string;
  title: string;
  description: string;
  link: string;
  score: number;
  /** Epoch seconds; a report changes only with a newer one. */
  timestamp: number;
  tags: string[];
  /** The IOCs as the feed wrote them, shown on the report. */
  iocs: Record<string, unknown>;
  values: IocValue[];
  queries: QueryIoc[];
}
