/**
 * An event format: how one version of the events API writes each kind of event. The versions
 * (v1.ts … v4.ts) differ only in a few kinds, so each builds on the one before.
 */
import type { EventOf, SensorEvent } from '../../../ingest/event.schemas.js';
import type { ChildprocObject, NetconnObject } from './objects.js';

export interface EventFormat {
  filemod(event: EventOf<'filemod'>): string;
  regmod(event: EventOf<'regmod'>): string;
  modload(event: EventOf<'modload'>): string;
  netconn(event: EventOf<'netconn'>): string | NetconnObject;
  childproc(event: EventOf<'childproc'>, sensorId: number): string | ChildprocObject;
  crossproc(event: EventOf<'crossproc'>, sensorId: number): string;
  processblock(event: EventOf<'processblock'>): string;
}

export interface CompleteLists {
  filemod_complete?: string[];
  regmod_complete?: string[];
  modload_complete?: string[];
  netconn_complete?: (string | NetconnObject)[];
  childproc_complete?: (string | ChildprocObject)[];
  crossproc_complete?: string[];
  processblock_complete?: string[];
}

/**
 * The `*_complete` lists of these events, each in the events' order. A list is left out when it
 * would be empty, as the real server's responses do (clients read them with a default).
 */
export function completeLists(events: readonly SensorEvent[], format: EventFormat, sensorId: number): CompleteLists {
  const lists: Record<string, unknown[]> = {};
  const add = (key: string, entry: unknown) => (lists[key] ??= []).push(entry);
  for (const event of events) {
    switch (event.type) {
      case 'filemod': add('filemod_complete', format.filemod(event)); break;
      case 'regmod': add('regmod_complete', format.regmod(event)); break;
      case 'modload': add('modload_complete', format.modload(event)); break;
      case 'netconn': add('netconn_complete', format.netconn(event)); break;
      case 'childproc': add('childproc_complete', format.childproc(event, sensorId)); break;
      case 'crossproc': add('crossproc_complete', format.crossproc(event, sensorId)); break;
      case 'processblock': add('processblock_complete', format.processblock(event)); break;
      case 'process_start':
      case 'process_end':
        break;
    }
  }
  return lists as CompleteLists;
}
