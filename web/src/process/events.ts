/**
 * A process's events as the v1 events API gives them (`*_complete` lists of pipe-delimited
 * strings, reference core §4.5), turned into one time-ordered list of rows for the timeline.
 * Only the time is read up front; a row's text is made when it is first shown or filtered on,
 * so 10,000 events cost 10,000 string slices before the first paint, not 10,000 splits.
 */
export const EVENT_TYPES = ['filemod', 'regmod', 'netconn', 'modload', 'childproc', 'crossproc'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_TYPE_LABELS: Record<EventType, string> = {
  filemod: 'File', regmod: 'Registry', netconn: 'Network', modload: 'Module', childproc: 'Child process', crossproc: 'Cross-process',
};

export interface TimelineEvent {
  type: EventType;
  time: string;
  raw: string;
  /** The row's text once made (eventText). */
  text?: string;
}

const FILE_OPS: Record<string, string> = { '1': 'created', '2': 'first wrote', '4': 'deleted', '8': 'last wrote' };
const REG_OPS: Record<string, string> = { '1': 'created key', '2': 'first wrote value', '4': 'deleted key', '8': 'deleted value' };

function ipv4(signed: string): string {
  const n = Number(signed) >>> 0;
  return Number.isFinite(Number(signed)) ? [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.') : signed;
}

function describe(type: EventType, raw: string): string {
  const f = raw.split('|');
  switch (type) {
    case 'filemod':
      return `${FILE_OPS[f[0] ?? ''] ?? f[0]} ${f[2] ?? ''}`;
    case 'regmod':
      return `${REG_OPS[f[0] ?? ''] ?? f[0]} ${f[2] ?? ''}`;
    case 'modload':
      return `loaded ${f[2] ?? ''} (${f[1] ?? ''})`;
    case 'netconn':
      return `${f[5] === 'true' ? 'to' : 'from'} ${f[4] || ipv4(f[1] ?? '')}:${f[2] ?? ''} ${f[3] === '17' ? 'UDP' : 'TCP'}`;
    case 'childproc':
      return `${f[5] === 'false' ? 'ended' : 'started'} ${f[3] ?? ''} (pid ${f[4] ?? ''})`;
    case 'crossproc':
      return `${f[0] ?? ''} ${f[4] ?? ''}${f[8] === 'true' ? ' (this process was the target)' : ''}`;
  }
}

export function eventText(event: TimelineEvent): string {
  return (event.text ??= describe(event.type, event.raw));
}

/** File, registry and cross-process events give their time second; the others first. */
const TIME_FIELD: Record<EventType, 0 | 1> = { filemod: 1, regmod: 1, crossproc: 1, netconn: 0, modload: 0, childproc: 0 };

function timeOf(type: EventType, raw: string): string {
  const bar = raw.indexOf('|');
  if (TIME_FIELD[type] === 0) return bar < 0 ? raw : raw.slice(0, bar);
  const next = raw.indexOf('|', bar + 1);
  return bar < 0 ? '' : raw.slice(bar + 1, next < 0 ? undefined : next);
}

export function timeline(process: Partial<Record<`${EventType}_complete`, string[]>>): TimelineEvent[] {
  const all = EVENT_TYPES.flatMap((type) => (process[`${type}_complete`] ?? []).map((raw): TimelineEvent => ({ type, time: timeOf(type, raw), raw })));
  return all.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}
