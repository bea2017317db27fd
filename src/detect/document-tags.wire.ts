/**
 * Detection tags as documents show them (reference core §3.4): `watchlists` as
 * `[{wid, value, segments_hit}]` and, per feed, `alliance_score_<feed>` (int), `alliance_link_<feed>`,
 * `alliance_data_<feed>` (report ids) and `alliance_updated_<feed>`. cbapi reads any
 * `alliance_<kind>_<feed>` key as a feed tag.
 */
import { Type } from '@sinclair/typebox';
import { documentTime } from '../domain/wire-time.js';
import type { DocumentTags } from './document-tags.js';

export const WatchlistTagsWire = Type.Array(Type.Object({
  wid: Type.String(),
  value: Type.String({ description: 'when the watchlist first tagged the document' }),
  segments_hit: Type.Optional(Type.Array(Type.Integer(), { description: 'segment ids it tagged (process documents)' })),
}));

/** Schema options that let a document carry the alliance_* fields through response serialization. */
export const ALLIANCE_PROPERTIES = {
  patternProperties: {
    '^alliance_(score|link|data|updated)_\\w+$': Type.Union([Type.Integer(), Type.String(), Type.Array(Type.String())]),
  },
};

export type AllianceFields = Record<`alliance_${string}`, number | string | string[]>;

export interface WireTags extends AllianceFields {
  watchlists: { wid: string; value: string; segments_hit?: number[] }[];
}

export function wireTags(tags: DocumentTags | undefined, kind: 'process' | 'binary'): WireTags {
  const wire: WireTags = {
    watchlists: (tags?.watchlists ?? []).map((tag) => ({
      wid: String(tag.watchlistId),
      value: documentTime(tag.hitMs),
      ...(kind === 'process' ? { segments_hit: tag.segmentIds } : {}),
    })),
  };
  for (const feed of tags?.feeds ?? []) {
    wire[`alliance_score_${feed.feedName}`] = feed.score;
    wire[`alliance_link_${feed.feedName}`] = feed.link;
    wire[`alliance_data_${feed.feedName}`] = feed.reportIds;
    wire[`alliance_updated_${feed.feedName}`] = documentTime(feed.updatedMs);
  }
  return wire;
}
