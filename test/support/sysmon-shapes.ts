/**
 * The flat recordings (shared/fixtures/sysmon) converted to the other shapes shippers and
 * converters write, so every shape is tested on the same real events: Winlogbeat/ECS documents,
 * evtx_dump's `{"Event":…}` JSON, the event XML in a syslog message (Sysmon for Linux), and the
 * two shapes with unnamed values: Fluent Bit's Windows records and `Get-WinEvent | ConvertTo-Json`.
 */

type Flat = Record<string, unknown>;

/** What the lab's pipeline (NXLog, Logstash) added around the event; the rest is EventData. */
const ENVELOPE = new Set([
  'EventID', 'Channel', 'Hostname', 'SourceName', 'Message', 'Keywords', 'Level', 'Task', 'TimeCreated', 'EventTime',
  'EventReceivedTime', 'ProviderGuid', 'RecordNumber', 'Severity', 'SeverityValue', 'SourceModuleName', 'SourceModuleType',
  'ExecutionProcessID', 'ThreadID', 'OpcodeValue', 'Version', 'Domain', 'AccountName', 'AccountType', 'UserID', 'EventTypeOrignal',
  '@timestamp', '@version', 'host', 'port', 'tags',
]);

function eventData(record: Flat): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [name, value] of Object.entries(record)) {
    if (!ENVELOPE.has(name) && value !== null && value !== undefined) data[name] = String(value);
  }
  return data;
}

/** A Winlogbeat 8 document: ECS envelope, the event's own fields in winlog.event_data. */
export function toEcs(record: Flat): Flat {
  const hostname = String(record.Hostname);
  return {
    '@timestamp': record['@timestamp'] ?? new Date().toISOString(),
    event: { code: String(record.EventID), provider: record.SourceName, kind: 'event', module: 'sysmon' },
    host: { name: hostname.toLowerCase(), hostname: hostname.split('.')[0]!.toLowerCase() },
    agent: { type: 'winlogbeat', version: '8.15.0' },
    winlog: {
      channel: record.Channel, computer_name: hostname, event_id: String(record.EventID), provider_name: record.SourceName,
      record_id: String(record.RecordNumber ?? 0), event_data: eventData(record),
    },
  };
}

/** evtx_dump --format json: System with attributes under #attributes, EventData by name. */
export function toEventJson(record: Flat): Flat {
  return {
    Event: {
      '#attributes': { xmlns: 'http://schemas.microsoft.com/win/2004/08/events/event' },
      System: {
        Provider: { '#attributes': { Name: record.SourceName } },
        EventID: record.Channel === 'Security' ? { '#attributes': { Qualifiers: '' }, '#text': Number(record.EventID) } : Number(record.EventID),
        TimeCreated: { '#attributes': { SystemTime: record['@timestamp'] ?? null } },
        Channel: record.Channel,
        Computer: record.Hostname,
      },
      EventData: eventData(record),
    },
  };
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The event as Sysmon writes it to syslog on Linux, inside the JSON line a shipper posts. */
export function toSyslogXml(record: Flat, channel = String(record.Channel)): Flat {
  const data = Object.entries(eventData(record)).map(([name, value]) => `<Data Name="${escapeXml(name)}">${escapeXml(value)}</Data>`).join('');
  const xml = '<Event><System><Provider Name="Linux-Sysmon" Guid="{ff032593-a8d3-4f13-b0d6-01fc615a0f97}"/>' +
    `<EventID>${String(record.EventID)}</EventID><Version>5</Version><Level>4</Level><Task>${String(record.EventID)}</Task>` +
    `<Channel>${escapeXml(channel)}</Channel><Computer>${escapeXml(String(record.Hostname))}</Computer><Security UserId="0"/></System>` +
    `<EventData>${data}</EventData></Event>`;
  return { '@timestamp': record['@timestamp'], host: { hostname: record.Hostname }, message: `sysmon: ${xml}` };
}

/** Microsoft's documented templates of the Security process events, in insert order. */
const SECURITY_TEMPLATES: Record<number, string[]> = {
  4688: ['SubjectUserSid', 'SubjectUserName', 'SubjectDomainName', 'SubjectLogonId', 'NewProcessId', 'NewProcessName', 'TokenElevationType',
    'ProcessId', 'CommandLine', 'TargetUserSid', 'TargetUserName', 'TargetDomainName', 'TargetLogonId', 'ParentProcessName', 'MandatoryLabel'],
  4689: ['SubjectUserSid', 'SubjectUserName', 'SubjectDomainName', 'SubjectLogonId', 'Status', 'ProcessId', 'ProcessName'],
};

/** An insert typed as Fluent Bit packs it: GUIDs as StringFromCLSID writes them, Sysmon's numbers and booleans as such. */
function typedInsert(value: unknown): unknown {
  const text = String(value ?? '');
  if (/^\{[0-9a-f-]{36}\}$/i.test(text)) return text.toUpperCase();
  if (/^\d+$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text;
}

/**
 * Fluent Bit's winevtlog record (Windows): System values by name, the recording's own rendered
 * Message, and EventData as StringInserts in the order the Message names them (Sysmon) or in the
 * event's template order (Security); TimeCreated in local time with its zone, as Fluent Bit writes it.
 */
export function toFluentBit(record: Flat): Flat {
  const message = String(record.Message ?? '');
  const created = typeof record.TimeCreated === 'string' ? `${record.TimeCreated.slice(0, 19)} +0000` : undefined;
  return {
    ProviderName: record.SourceName, EventID: Number(record.EventID), Version: 5, Level: 4, TimeCreated: created,
    EventRecordID: Number(record.RecordNumber ?? 0), Channel: record.Channel, Computer: record.Hostname, Message: message,
    StringInserts: valueNames(record).map((name) => typedInsert(record[name])),
  };
}

/** The order of the event's values: the Message's name lines (Sysmon), the template (Security). */
function valueNames(record: Flat): string[] {
  if (record.Channel === 'Security' && SECURITY_TEMPLATES[Number(record.EventID)]) return SECURITY_TEMPLATES[Number(record.EventID)]!;
  return String(record.Message ?? '').split(/\r?\n/).slice(1).flatMap((line) => /^([A-Za-z][A-Za-z0-9]*):(?: |$)/.exec(line)?.[1] ?? []);
}

/**
 * `Get-WinEvent | ConvertTo-Json` in Windows PowerShell: an EventLogRecord's properties, its values
 * as `Properties: [{"Value": …}]` (GUIDs as `{"Guid": "…"}`, bare and lower case) and its time as
 * "/Date(ms)/".
 */
export function toGetWinEvent(record: Flat): Flat {
  const value = (raw: unknown) => {
    const typed = typedInsert(raw);
    return typeof typed === 'string' && /^\{[0-9A-F-]{36}\}$/.test(typed) ? { Guid: typed.slice(1, -1).toLowerCase() } : typed;
  };
  const created = typeof record.TimeCreated === 'string' ? `/Date(${Date.parse(`${record.TimeCreated.replace(' ', 'T')}Z`)})/` : undefined;
  return {
    Id: Number(record.EventID), Version: 5, ProviderName: record.SourceName, LogName: record.Channel, MachineName: record.Hostname,
    TimeCreated: created, RecordId: Number(record.RecordNumber ?? 0), Message: String(record.Message ?? ''),
    Properties: valueNames(record).map((name) => ({ Value: value(record[name]) })),
  };
}
