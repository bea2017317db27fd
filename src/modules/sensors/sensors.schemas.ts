/** Wire shapes of the analyst side of sensors (reference core §6), types exactly as Carbon Black sent them. */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';

const NumericText = Type.String({ pattern: '^-?[0-9]+$', description: 'A number sent as text, as Carbon Black does' });
const RecordTime = Type.String({ description: 'Server-local "YYYY-MM-DD HH:MM:SS.ffffff±HH:MM"' });
/** One schema with two types, not a union: a union would let Fastify's coercion turn null into "". */
const NullableText = (options: { maxLength: number; description?: string }) =>
  Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });

export const SensorStatus = Type.Union([Type.Literal('Online'), Type.Literal('Offline'), Type.Literal('Uninstalled')], {
  description: 'Offline once three check-in intervals pass without a check-in; Uninstalled once the sensor confirmed an uninstall',
});

export const Sensor = Type.Object({
  id: Type.Integer(),
  group_id: Type.Integer(),
  computer_name: Type.String(),
  computer_dns_name: Type.String(),
  computer_sid: Type.String(),
  os_environment_display_string: Type.String(),
  os_environment_id: Type.Integer(),
  os_type: Type.Integer({ description: '1 Windows, 2 macOS, 3 Linux' }),
  build_id: Type.Integer(),
  build_version_string: Type.String(),
  boot_id: Type.String({ description: 'The sensor\'s count of host boots' }),
  network_adapters: Type.String({ description: '"<ip>,<mac>|" per adapter' }),
  physical_memory_size: NumericText,
  systemvolume_total_size: NumericText,
  systemvolume_free_size: NumericText,
  uptime: NumericText,
  sensor_uptime: NumericText,
  clock_delta: Type.String({ description: 'Seconds the sensor\'s clock is ahead of the server\'s (negative: behind)' }),
  status: SensorStatus,
  sensor_health_status: Type.Integer({ minimum: 0, maximum: 100 }),
  sensor_health_message: Type.String(),
  registration_time: RecordTime,
  last_checkin_time: RecordTime,
  next_checkin_time: RecordTime,
  last_update: RecordTime,
  network_isolation_enabled: Type.Boolean({ description: 'Isolation is requested' }),
  is_isolating: Type.Boolean({ description: 'The sensor reports isolation in force' }),
  restart_queued: Type.Boolean(),
  uninstall: Type.Boolean({ description: 'An uninstall is requested' }),
  uninstalled: Type.Union([Type.Boolean(), Type.Null()], { description: 'true once the sensor confirmed the uninstall' }),
  notes: NullableText({ maxLength: 65536 }),
  event_log_flush_time: Type.Union([RecordTime, Type.Null()]),
  num_eventlog_bytes: NumericText,
  num_storefiles_bytes: NumericText,
  supports_cblr: Type.Boolean(),
  supports_isolation: Type.Boolean(),
  supports_2nd_gen_modloads: Type.Boolean(),
  license_expiration: RecordTime,
  parity_host_id: NumericText,
  power_state: Type.Integer(),
  node_id: Type.Integer(),
  shard_id: Type.Integer(),
  cookie: Type.Integer(),
  display: Type.Boolean(),
  emet_version: Type.String(),
  emet_telemetry_path: Type.String(),
  emet_dump_flags: Type.String(),
  emet_report_setting: Type.String(),
  emet_exploit_action: Type.String(),
  emet_process_count: Type.Integer(),
  emet_is_gpo: Type.Boolean(),
});
export type Sensor = Static<typeof Sensor>;

export const SensorParams = Type.Object({ id: IntegerId });

const Hostname = Type.String({ minLength: 1, maxLength: 256, description: 'Case-sensitive substring of computer_name' });
const Ip = Type.String({ pattern: '^[0-9A-Fa-f.:]{1,45}$', description: 'Case-sensitive substring of one of the sensor\'s IP addresses' });

/** The filters of both listings (reference core §6.1). */
const SensorFilters = {
  hostname: Type.Optional(Hostname),
  ip: Type.Optional(Ip),
  groupid: Type.Optional(IntegerId),
};

export const SensorListQuery = Type.Object({
  ...SensorFilters,
  inactive_filter_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 36500, description: 'Leave out sensors not seen for this many days' })),
});
export type SensorListQuery = Static<typeof SensorListQuery>;

/** Wire names a paginated listing sorts by. */
export const SENSOR_SORT_COLUMNS = [
  'id', 'computer_name', 'computer_dns_name', 'group_id', 'os_environment_display_string', 'build_version_string',
  'registration_time', 'last_checkin_time',
] as const;
export type SensorSortColumn = (typeof SENSOR_SORT_COLUMNS)[number];

export const SensorSearchQuery = Type.Object({
  ...SensorFilters,
  q: Type.Optional(Type.String({
    maxLength: 300,
    description: 'One more filter as "<field>:<value>", field one of hostname, ip, groupid (cbapi\'s where())',
  })),
  start: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  rows: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, default: 10, description: '0 answers only total_results' })),
  'sort.col': Type.Optional(Type.Union(SENSOR_SORT_COLUMNS.map((column) => Type.Literal(column)), { default: 'id' })),
  'sort.dir': Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'asc' })),
  facet: Type.Optional(Type.Boolean()),
  'facet.field': Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
});
export type SensorSearchQuery = Static<typeof SensorSearchQuery>;

export const SensorSearchReply = Type.Object({
  results: Type.Array(Sensor),
  total_results: Type.Integer(),
  facets: Type.Record(Type.String(), Type.Unknown(), { description: 'Always empty: Vigil computes no sensor facets' }),
});
export type SensorSearchReply = Static<typeof SensorSearchReply>;

/**
 * What a PUT may change. cbapi 7.1+ sends exactly these six fields; older clients send the whole
 * record, whose other fields (what the sensor reports, is_isolating included) are ignored.
 */
export const SensorUpdateBody = Type.Object({
  network_isolation_enabled: Type.Optional(Type.Boolean()),
  restart_queued: Type.Optional(Type.Boolean()),
  uninstall: Type.Optional(Type.Boolean()),
  group_id: Type.Optional(IntegerId),
  notes: Type.Optional(NullableText({ maxLength: 65536 })),
  event_log_flush_time: Type.Optional(NullableText({
    maxLength: 64,
    description: 'Upload everything from before this time: "YYYY-MM-DD HH:MM:SS[.ffffff]±HH:MM", ISO 8601, or RFC 822 ("Wed, 01 Jan 2020 00:00:00 GMT")',
  })),
});
export type SensorUpdateBody = Static<typeof SensorUpdateBody>;

export const SensorStatistics = Type.Object({
  sensor_count: Type.Integer({ description: 'Sensors the caller can see' }),
  active_sensor_count: Type.Integer({ description: 'Of those, the ones seen in the last 24 hours' }),
  num_eventlog_bytes: Type.Integer({ description: 'Event backlog held on sensors; Vigil sensors stream and report none' }),
  num_storefile_bytes: Type.Integer({ description: 'Binary backlog held on sensors; likewise none' }),
});
export type SensorStatistics = Static<typeof SensorStatistics>;

/** PUT's 204 reply has no body. */
export const NoContent = Type.Null({ description: 'No body' });
