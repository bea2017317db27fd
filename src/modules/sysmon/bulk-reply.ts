/**
 * Elasticsearch's answers, as far as Beats, Elastic Agent and Vector read them: the bulk reply
 * item by item (2xx stored or skipped as not Sysmon, 400 refused with Vigil's reason as the error
 * type), and the cluster facts they ask for before sending.
 */
import { randomBytes } from 'node:crypto';
import type { BulkItemHead } from '../../ingest/sysmon/bulk-lines.js';
import { runLine } from '../../ingest/sysmon/bulk-read.js';
import { NOT_FOR_VIGIL, type SysmonSkipReason } from '../../ingest/sysmon/sysmon-reasons.js';

export interface ItemOutcome {
  head: BulkItemHead;
  /** It answers that many items after it too, alike but for their lines (ReadItem.more). */
  more?: number | undefined;
  /** Undefined: stored. */
  reason: SysmonSkipReason | undefined;
  detail: string;
}

/**
 * How much of the reply the client asked for with `filter_path`. Beats send
 * `errors,items.*.error,items.*.status` with every bulk request (libbeat's elasticsearch client)
 * and read nothing else: each item then is its status, and its error when it has one. Any other
 * filter is answered with the whole reply, as it was before filters were read at all.
 */
export type ReplyShape = 'full' | 'status';

const STATUS_FILTER: ReadonlySet<string> = new Set(['errors', 'items.*.error', 'items.*.status']);

export function replyShape(filterPath: string | undefined): ReplyShape {
  const paths = new Set((filterPath ?? '').split(',').map((path) => path.trim()).filter((path) => path !== ''));
  return paths.size === STATUS_FILTER.size && [...paths].every((path) => STATUS_FILTER.has(path)) ? 'status' : 'full';
}

/**
 * The bulk reply as JSON text, written item by item: Beats send 1,600 to 2,000 documents a request,
 * and building then serializing an object per item cost as much as reading the documents.
 */
export function bulkReply(outcomes: readonly ItemOutcome[], defaultIndex: string, tookMs: number, shape: ReplyShape = 'full'): string {
  if (shape === 'status') return statusReply(outcomes);
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
  const items: string[] = [];
  let seq = 0;
  for (const { head: item, more = 0, reason, detail } of outcomes) {
    const action = `{"${item.action}":{"_index":${indexJson(item.index)},"_id":`;
    for (let k = 0; k <= more; k++, seq++) {
      const head = `${action}${item.id === undefined ? `"${idPrefix}${seq.toString(36)}"` : JSON.stringify(item.id)},`;
      if (reason === undefined) items.push(`${head}${CREATED}"_seq_no":${seq},"_primary_term":1,"status":201}}`);
      else if (NOT_FOR_VIGIL.has(reason)) items.push(`${head}${NOOP}"_seq_no":${seq},"_primary_term":1,"status":200}}`);
      else {
        errors = true;
        items.push(`${head}"status":400,"error":${errorJson(runLine(item.line, k), reason, detail)}}}`);
      }
    }
  }
  return `{"took":${tookMs},"errors":${errors},"items":[${items.join(',')}]}`;
}

/** The reply as `filter_path=errors,items.*.error,items.*.status` leaves it: a run's items stored or skipped share one answer's text. */
function statusReply(outcomes: readonly ItemOutcome[]): string {
  let errors = false;
  const items: string[] = [];
  for (const { head, more = 0, reason, detail } of outcomes) {
    if (reason === undefined || NOT_FOR_VIGIL.has(reason)) {
      const answer = `{"${head.action}":{"status":${reason === undefined ? 201 : 200}}}`;
      for (let k = 0; k <= more; k++) items.push(answer);
      continue;
    }
    errors = true;
    for (let k = 0; k <= more; k++) items.push(`{"${head.action}":{"status":400,"error":${errorJson(runLine(head.line, k), reason, detail)}}}`);
  }
  return `{"errors":${errors},"items":[${items.join(',')}]}`;
}

const errorJson = (line: number, reason: SysmonSkipReason, detail: string) => JSON.stringify({ type: reason, reason: `line ${line}: ${detail}` });

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
