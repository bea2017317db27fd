/** What Sysmon ingest answers a shipper or importer (docs/sysmon.md). */
import { Type, type Static } from '@sinclair/typebox';

export const SysmonLineError = Type.Object({
  line: Type.Integer({ description: '1-based line of the body' }),
  reason: Type.String(),
  detail: Type.String(),
});

export const SysmonIngestReply = Type.Object({
  duplicate: Type.Boolean({ description: 'true: a batch with this X-Vigil-Batch digest was stored before; nothing was stored again' }),
  read: Type.Integer({ description: 'events (non-blank lines) read' }),
  stored: Type.Integer({ description: 'events mapped and handed to the store' }),
  skipped: Type.Record(Type.String(), Type.Integer(), { description: 'events not stored, by reason' }),
  events: Type.Object({
    accepted: Type.Integer({ description: 'Vigil events stored (one Sysmon event may make two)' }),
    filtered: Type.Integer({ description: 'dropped by ingress filters' }),
    rejected: Type.Integer({ description: 'refused by the event schema (counted per sensor by reason)' }),
  }),
  hosts: Type.Array(Type.Object({ hostname: Type.String(), sensor_id: Type.Integer(), stored: Type.Integer() })),
  errors: Type.Array(SysmonLineError, { description: 'the first lines not stored for a reason other than being another channel or event id' }),
});
export type SysmonIngestReply = Static<typeof SysmonIngestReply>;
