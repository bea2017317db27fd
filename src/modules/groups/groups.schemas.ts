/** Wire shapes of sensor groups, as reference core §7.2 and cbapi's group-modify.yaml give them. */
import { Type, type Static } from '@sinclair/typebox';
import { IntegerId } from '../../http/schemas.js';
import { AccessCategory } from '../teams/teams.schemas.js';

const Text = Type.String({ maxLength: 1024 });
/**
 * One schema with two types, not a union: Fastify coerces types, and inside a union the first
 * branch would turn null into "" (or "" into null).
 */
const NullableText = Type.Unsafe<string | null>({ type: ['string', 'null'], maxLength: 1024 });
const SensorVersion = Type.String({ maxLength: 64, description: 'A build such as "006.001.002.71109", or "Manual".' });
const Percent = Type.Integer({ minimum: 0, maximum: 100 });
const ByteCount = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

/** Carbon Black 5.0 sent the byte quotas as strings, later clients as integers; both are read. */
const ByteCountInput = Type.Union([ByteCount, Type.String({ pattern: '^[0-9]{1,15}$' })]);

const EventKind = Type.Union(
  ['crossproc', 'filemod', 'filemod-non-binary', 'modload', 'netconn', 'process-info', 'regmod'].map((kind) =>
    Type.Literal(kind),
  ),
);

const EventExclusion = Type.Object({
  eventsToIgnore: Type.Array(EventKind, { maxItems: 7 }),
  paths: Type.Array(Text, { maxItems: 1000 }),
});

/**
 * The stored part of a group: every field but id, name, site_id and the computed ones. A group
 * created earlier may lack fields added later; groups.defaults.ts fills them in.
 */
export const GroupSettings = Type.Object({
  sensorbackend_server: Type.String({ maxLength: 1024, description: 'URL sensors of this group report to.' }),
  datastore_server: NullableText,
  sensor_exe_name: Text,
  sensor_version: SensorVersion,
  sensor_version_windows: SensorVersion,
  sensor_version_osx: SensorVersion,
  sensor_version_linux: SensorVersion,
  alert_criticality: Type.Integer({ minimum: 1, maximum: 5 }),
  banning_enabled: Type.Boolean(),
  tamper_level: Type.Integer({ minimum: 0, maximum: 1 }),
  max_licenses: Type.Integer({ minimum: -1, maximum: 2 ** 31 - 1, description: '-1 for no limit.' }),
  quota_eventlog_bytes: ByteCount,
  quota_eventlog_percent: Percent,
  quota_storefile_bytes: ByteCount,
  quota_storefile_percent: Percent,
  collect_cross_procs: Type.Boolean(),
  collect_emet_events: Type.Boolean(),
  collect_filemods: Type.Boolean(),
  collect_filewritemd5s: Type.Boolean(),
  collect_moduleinfo: Type.Boolean(),
  collect_moduleloads: Type.Boolean(),
  collect_netconns: Type.Boolean(),
  collect_nonbinary_filewrites: Type.Boolean(),
  collect_processes: Type.Boolean(),
  collect_regmods: Type.Boolean(),
  collect_storefiles: Type.Boolean(),
  collect_usercontext: Type.Boolean(),
  collect_amsi: Type.Boolean(),
  filter_known_dlls: Type.Boolean(),
  process_filter_level: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 }),
  vdi_enabled: Type.Boolean(),
  address_resolution_hint: Type.Union([Type.Literal('ipv4'), Type.Literal('ipv6'), Type.Literal('')]),
  server_cert_id: Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 }),
  event_exclusions: Type.Array(EventExclusion, { maxItems: 1000 }),
});
export type GroupSettings = Static<typeof GroupSettings>;

export const GroupTeamAccess = Type.Object({
  team_id: Type.Integer(),
  team_name: Type.String(),
  access_category: AccessCategory,
});

const GroupTeamAccessInput = Type.Object({
  team_id: IntegerId,
  team_name: Type.Optional(Type.String()),
  access_category: AccessCategory,
});

/** Carbon Black 7.x isolation exclusions; Vigil has none yet, so the list is always empty. */
const IsolationExclusion = Type.Object({
  id: Type.Integer(),
  group_id: Type.Integer(),
  name: Type.String(),
  ip_address: Type.String(),
  enabled: Type.Boolean(),
  uploader_id: Type.Integer(),
  added_time: Type.String(),
  changed_time: Type.String(),
  uploader_username: Type.String(),
});

export const Group = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  site_id: Type.Integer(),
  ...GroupSettings.properties,
  number_of_hosts: Type.Integer({ description: 'Sensors in the group.' }),
  team_access: Type.Array(GroupTeamAccess, { description: 'Every team, with "No Access" where it was given none.' }),
  isolation_exclusions: Type.Array(IsolationExclusion),
});
export type Group = Static<typeof Group>;

export const GroupParams = Type.Object({ id: IntegerId });

const GroupName = Type.String({ minLength: 1, maxLength: 256 });

/** Settings as clients send them; any field left out keeps its default (create) or value (update). */
export const GroupSettingsInput = Type.Partial(
  Type.Object({ ...GroupSettings.properties, quota_eventlog_bytes: ByteCountInput, quota_storefile_bytes: ByteCountInput }),
);
export type GroupSettingsInput = Static<typeof GroupSettingsInput>;

/**
 * cbapi sends the whole object it holds (id null on create; number_of_hosts and the like on
 * update): fields not declared here are ignored. team_access sets the access of the teams listed.
 */
export const GroupCreateBody = Type.Object({
  name: GroupName,
  site_id: Type.Optional(IntegerId),
  team_access: Type.Optional(Type.Array(GroupTeamAccessInput, { maxItems: 10000 })),
  ...GroupSettingsInput.properties,
});
export type GroupCreateBody = Static<typeof GroupCreateBody>;

export const GroupUpdateBody = Type.Partial(GroupCreateBody);
export type GroupUpdateBody = Static<typeof GroupUpdateBody>;

/**
 * Carbon Black answered group PUT and DELETE with 200, an empty body and Content-Type
 * application/json (reference core §7.1). cbapi accepts that: an unparsable body makes it read
 * the group again.
 */
export const EmptyReply = Type.Null({ description: 'Empty body (Content-Type application/json)' });
