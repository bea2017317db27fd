/**
 * Elasticsearch's answers, as far as Beats, Elastic Agent and Vector read them: the bulk reply
 * item by item (2xx stored or skipped as not Sysmon, 400 refused with Vigil's reason as the error
 * type), and the cluster facts they ask for before sending.
 */
import { randomBytes } from 'node:crypto';
import type { BulkItemHead } from '../../ingest/sysmon/bulk-lines.js';
import { NOT_FOR_VIGIL, type SysmonSkipReason } from '../../ingest/sysmon/sysmon-reasons.js';


export interface ItemOutcome {
  head: BulkItemHead;
  /** Undefined: stored. */
  reason: SysmonSkipReason | undefined;
  detail: string;
}

/**
 * The bulk reply as JSON text, written item by item: Beats send 1,600 to 2,000 documents a request,
 * and building then serializing an object per item cost as much as reading the documents.
 */
export function bulkReply(outcomes: readonly ItemOutcome[], defaultIndex: string, tookMs: number): string {
  let errors = false;
  // Ids clients never see again (Vigil stores events, not documents): unique per reply is enough.
  const idPrefix = randomBytes(9).toString('base64url') + '-';
  const defaultIndexJson = JSON.stringify(defaultIndex);
  // Shippers name one index for a whole body: its JSON is written once.
  let lastIndex: string | undefined;
  let lastIndexJson = defaultIndexJson;
  const indexJson = (index: string | undefined) => {
    if (index === undefined) return defaultIndexJson;
    if (index !== lastIndex) [lastIndex, lastIndexJson] = [index, JSON.stringify(index)];
    return lastIndexJson;
  };
  const items = outcomes.map(({ head: item, reason, detail }, seq) => {
    const head = `{"${item.action}":{"_index":${indexJson(item.index)},` +
      `"_id":${item.id === undefined ? `"${idPrefix}${seq.toString(36)}"` : JSON.stringify(item.id)},`;
    if (reason === undefined) return `${head}${CREATED}"_seq_no":${seq},"_primary_term":1,"status":201}}`;
    if (NOT_FOR_VIGIL.has(reason)) return `${head}${NOOP}"_seq_no":${seq},"_primary_term":1,"status":200}}`;
    errors = true;
    return `${head}"status":400,"error":${JSON.stringify({ type: reason, reason: `line ${item.line}: ${detail}` })}}}`;
  });
  return `{"took":${tookMs},"errors":${errors},"items":[${items.join(',')}]}`;
}

const SHARDS = '"_shards":{"total":1,"successful":1,"failed":0},';
const CREATED = `"_version":1,"result":"created",${SHARDS}`;
const NOOP = `"_version":1,"result":"noop",${SHARDS}`;

/** `GET /`: what clients read to pick their protocol. 8.x, the version Beats 7.17 to 8.x and Vector all speak. */
export const CLUSTER_INFO = {
  name: 'vigil',
  cluster_name: 'vigil',
  cluster_uuid: 'vigil-sysmon-ingest',
  version: {
    number: '8.19.0', build_flavor: 'default', build_type: 'docker', build_snapshot: false, lucene_version: '9.12.0',
    minimum_wire_compatibility_version: '7.17.0', minimum_index_compatibility_version: '7.0.0',
  },
  tagline: 'You Know, for Search',
};

export const LICENSE = { license: { status: 'active', uid: 'vigil', type: 'basic', issue_date_in_millis: 0, max_nodes: 1000, issued_to: 'vigil', issuer: 'vigil' } };
