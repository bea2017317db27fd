/**
 * The event values a process search can ask for (event fields of the query language), as
 * "<field>:<value>" terms indexed once per segment that holds them.
 */
import type { SensorEvent } from './event.schemas.js';
import { baseName } from './normalize.js';

/** Receives one (field, value) term of an event. */
export type TermSink = (field: string, value: string) => void;

export function eventTerms(event: SensorEvent, add: TermSink): void {
  switch (event.type) {
    case 'filemod':
      add('filemod', event.path);
      return;
    case 'regmod':
      add('regmod', event.path);
      return;
    case 'modload':
      add('modload', event.path);
      add('modload_md5', event.md5);
      return;
    case 'netconn':
      add('ipaddr', event.remote_ip);
      add('ipport', String(event.remote_port));
      if (event.domain) add('domain', event.domain);
      return;
    case 'childproc':
      add('childproc_name', baseName(event.path));
      if (event.md5) add('childproc_md5', event.md5);
      return;
    case 'crossproc':
      add('crossproc_name', baseName(event.target_path));
      add('crossproc_type', event.action);
      if (event.target_md5) add('crossproc_md5', event.target_md5);
      return;
    case 'processblock':
      add('blocked_md5', event.blocked_md5);
      return;
    case 'process_start':
    case 'process_end':
      return;
  }
}
