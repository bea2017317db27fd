/**
 * Why a Sysmon line or event was not stored. Each is counted under its name (sysmon_skipped.<reason>)
 * for the host's sensor when the host is known, and reported to the shipper or importer always.
 */
export type SysmonSkipReason =
  /** The line is not JSON, or not a JSON object. */
  | 'malformed_line'
  /** The `message` of a Linux syslog line is not a readable Sysmon event XML. */
  | 'malformed_xml'
  /** Fluent Bit's unnamed StringInserts that its Message (or a Security template) does not name one to one. */
  | 'unnamed_fields'
  /** Another channel: Windows Security events other than 4688/4689, System, PowerShell, … */
  | 'not_sysmon'
  /** No numeric EventID. */
  | 'unknown_event_id'
  /** A Sysmon event Vigil has no event type for (2, 4, 9, 16, 24, 25, 255, …). */
  | 'unmapped_event_id'
  | 'missing_hostname'
  /** No readable UtcTime (or, for Security events, no record time with its zone). */
  | 'missing_time'
  /** Before 2000 or more than a day ahead of the server's clock. */
  | 'time_out_of_range'
  /** No ProcessGuid, or one that is not a Sysmon process GUID. */
  | 'missing_process_guid'
  /** A field the event's mapping needs (Image, TargetFilename, …). */
  | 'missing_field'
  /** A Security 4689 exit of a process whose 4688 start was not seen. */
  | 'unknown_process'
  /** A Security 4688/4689 of a host that runs Sysmon, whose process events say the same. */
  | 'covered_by_sysmon'
  /** In a bulk body stored before, byte for byte: a shipper sending a batch again after a timeout. */
  | 'already_stored';

export const skipCounter = (reason: SysmonSkipReason) => `sysmon_skipped.${reason}`;

/**
 * Reasons that say an event is not Vigil's to keep, rather than that it is wrong: shippers are
 * told these went well, and replies do not list them among the errors (they are counted all the same).
 */
export const NOT_FOR_VIGIL: ReadonlySet<SysmonSkipReason> = new Set(['not_sysmon', 'unmapped_event_id', 'covered_by_sysmon', 'unknown_process', 'already_stored']);
