/**
 * A process's events as the v1 events API gives them (`*_complete` lists of pipe-delimited
 * strings, reference core §4.5), turned into one time-ordered list of rows for the timeline.
 */
export const EVENT_TYPES = ['filemod', 'regmod', 'netconn', 'modload', 'childproc', 'crossproc'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_TYPE_LABELS: Record<EventType, string> = {
  filemod: 'File', regmod: 'Registry', netconn: 'Network', modload: 'Module', childproc: 'Child process', crossproc: 'Cross-process',
};

export interface TimelineEvent {
  type: EventType;
  time: string;
  text: string;
}

const FILE_OPS: Record<string, string> = { '1': 'created', '2': 'first wrote', '4': 'deleted', '8': 'last wrote' };
const REG_OPS: Record<string, string> = { '1': 'created key', '2': 'first wrote value', '4': 'deleted key', '8': 'deleted value' };

function ipv4(signed: string): string {
  const n = Number(signed) >>> 0;
  return Number.isFinite(Number(signed)) ? [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.') : signed;
}

function parseOne(type: EventType, raw: string): TimelineEvent {
  const f = raw.split('|');
  switch (type) {
    case 'filemod':
      return { type, time: f[1] ?? '', text: `${FILE_OPS[f[0] ?? ''] ?? f[0]} ${f[2] ?? ''}` };
    case 'regmod':
      return { type, time: f[1] ?? '', text: `${REG_OPS[f[0] ?? ''] ?? f[0]} ${f[2] ?? ''}` };
    case 'modload':
      return { type, time: f[0] ?? '', text: `loaded ${f[2] ?? ''} (${f[1] ?? ''})` };
    case 'netconn': {
      const outbound = f[5] === 'true';
      const proto = f[3] === '17' ? 'UDP' : 'TCP';
      return { type, time: f[0] ?? '', text: `${outbound ? 'to' : 'from'} ${f[4] || ipv4(f[1] ?? '')}:${f[2] ?? ''} ${proto}` };
    }
    case 'childproc':
      return { type, time: f[0] ?? '', text: `${f[5] === 'false' ? 'ended' : 'started'} ${f[3] ?? ''} (pid ${f[4] ?? ''})` };
    case 'crossproc':
      return { type, time: f[1] ?? '', text: `${f[0] ?? ''} ${f[4] ?? ''}${f[8] === 'true' ? ' (this process was the target)' : ''}` };
  }
}

export function timeline(process: Partial<Record<`${EventType}_complete`, string[]>>): TimelineEvent[] {
  const all = EVENT_TYPES.flatMap((type) => (process[`${type}_complete`] ?? []).map((raw) => parseOne(type, raw)));
  return all.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}
