/**
 * Counts a run's acknowledged events back through the process search API: every segment of every
 * sensor (one sensor at a time, 10,000 documents a page), its per-type counts summed, each process
 * found counting its start event and each terminated one its end event. Compared type by type with
 * what the simulator had acknowledged.
 */
import { api } from '../support/api.js';
import type { VigilServer } from '../support/vigil-server.js';

const COUNT_FIELDS = {
  modload: 'modload_count', filemod: 'filemod_count', regmod: 'regmod_count', netconn: 'netconn_count',
  childproc: 'childproc_count', crossproc: 'crossproc_count', processblock: 'processblock_count',
} as const;
const PAGE = 10_000;

type SearchDocument = Record<string, unknown> & { id: string; terminated: boolean };

export interface Searchable {
  found: number;
  acknowledged: number;
  /** Types whose counts differ: acknowledged against found. */
  differences: Record<string, [number, number]>;
  segments: number;
  seconds: number;
}

export async function countSearchable(server: VigilServer, acknowledged: Record<string, number>): Promise<Searchable> {
  const started = Date.now();
  const sensors = await api<{ id: number }[]>(server, 'GET', '/api/v1/sensor');
  const found: Record<string, number> = {};
  let segments = 0;
  for (const { id: sensorId } of sensors.body) {
    const processes = new Set<string>();
    const ended = new Set<string>();
    for (let start = 0; ; start += PAGE) {
      const reply = await api<{ results: SearchDocument[]; total_results: number }>(
        server, 'GET', `/api/v1/process?cb.urlver=1&q=${encodeURIComponent(`sensor_id:${sensorId}`)}&rows=${PAGE}&start=${start}`,
      );
      if (reply.status !== 200) throw new Error(`search for sensor ${sensorId} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 200)}`);
      for (const doc of reply.body.results) {
        for (const [type, field] of Object.entries(COUNT_FIELDS)) found[type] = (found[type] ?? 0) + Number(doc[field] ?? 0);
        processes.add(doc.id);
        if (doc.terminated) ended.add(doc.id);
      }
      segments += reply.body.results.length;
      if (reply.body.results.length < PAGE || start + PAGE >= reply.body.total_results) break;
    }
    found.process_start = (found.process_start ?? 0) + processes.size;
    found.process_end = (found.process_end ?? 0) + ended.size;
  }
  const differences: Record<string, [number, number]> = {};
  for (const type of new Set([...Object.keys(acknowledged), ...Object.keys(found)])) {
    if ((acknowledged[type] ?? 0) !== (found[type] ?? 0)) differences[type] = [acknowledged[type] ?? 0, found[type] ?? 0];
  }
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  // An event counts as searchable once: a type found more often than sent does not make up for another.
  const matched = Object.keys(acknowledged).reduce((sum, type) => sum + Math.min(acknowledged[type]!, found[type] ?? 0), 0);
  return { found: matched, acknowledged: total(acknowledged), differences, segments, seconds: Math.round((Date.now() - started) / 1000) };
}
