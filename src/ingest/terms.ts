/**
 * The event values a process search can ask for (event fields of the query language), as
 * "<field>:<value>" terms indexed once per segment that holds them.
 */
import type { SensorEvent } from './event.schemas.js';
import { baseName } from './normalize.js';

export function eventTerms(event: SensorEvent, into: Set<string>): void {
  switch (event.type) {
    case 'filemod':
      into.add(`filemod:${event.path}`);
      return;
    case 'regmod':
      into.add(`regmod:${event.path}`);
      return;
    case 'modload':
      into.add(`modload:${event.path}`);
      into.add(`modload_md5:${event.md5}`);
      return;
    case 'netconn':
      into.add(`ipaddr:${event.remote_ip}`);
      into.add(`ipport:${event.remote_port}`);
      if (event.domain) into.add(`domain:${event.domain}`);
      return;
    case 'childproc':
      into.add(`childproc_name:${baseName(event.path)}`);
      if (event.md5) into.add(`childproc_md5:${event.md5}`);
      return;
    case 'crossproc':
      into.add(`crossproc_name:${baseName(event.target_path)}`);
      into.add(`crossproc_type:${event.action}`);
      if (event.target_md5) into.add(`crossproc_md5:${event.target_md5}`);
      return;
    case 'processblock':
      into.add(`blocked_md5:${event.blocked_md5}`);
      return;
    case 'process_start':
    case 'process_end':
      return;
  }
}
