/**
 * The little of Elasticsearch that Winlogbeat, Elastic Agent and Vector need to ship to Vigil:
 * the cluster facts they read at start, templates and policies they may install (acknowledged,
 * nothing kept: Vigil has no indices), and `_bulk`, which is Sysmon ingest.
 */
import type { IngestKeyIdentity } from '../../domain/ingest-key.js';
import { CLUSTER_INFO, LICENSE, replyShape } from './bulk-reply.js';
import type { SysmonIngestService } from './sysmon-ingest.service.js';

export class ElasticCompatService {
  constructor(private readonly sysmon: SysmonIngestService) {}

  info(): typeof CLUSTER_INFO {
    return CLUSTER_INFO;
  }

  license(): typeof LICENSE {
    return LICENSE;
  }

  health(): Record<string, unknown> {
    return { cluster_name: CLUSTER_INFO.cluster_name, status: 'green', timed_out: false, number_of_nodes: 1, number_of_data_nodes: 1 };
  }

  /** A template or lifecycle policy, as asked for: it "exists", so clients do not try to install it on every start. */
  stored(kind: 'index_template' | 'template' | 'policy', name: string): Record<string, unknown> {
    if (kind === 'index_template') return { index_templates: [{ name, index_template: { index_patterns: [`${name}*`], template: {} } }] };
    if (kind === 'template') return { [name]: { index_patterns: [`${name}*`], settings: {}, mappings: {} } };
    return { [name]: { version: 1, policy: { phases: {} } } };
  }

  acknowledge(): { acknowledged: true } {
    return { acknowledged: true };
  }

  /** The bulk reply as JSON text (bulk-reply.ts says why), as much of it as `filterPath` asks for. */
  bulk(key: IngestKeyIdentity, raw: Buffer, contentEncoding: string | undefined, index: string | undefined, filterPath: string | undefined): Promise<string> {
    return this.sysmon.ingestBulk(key, raw, contentEncoding, index, replyShape(filterPath));
  }
}
