/** Request and reply bodies of the sensor protocol (docs/sensor-protocol.md). */
import { Type, type Static } from '@sinclair/typebox';

const Short = Type.String({ maxLength: 256 });
const Count = Type.Integer({ minimum: 0 });

export const NetworkAdapter = Type.Object({
  ip: Type.String({ maxLength: 45 }),
  mac: Type.String({ pattern: '^[0-9a-fA-F]{12}$', description: '12 hex digits, no separators' }),
});

/** What a sensor says about its host, at registration and at every check-in. */
const HostFacts = {
  computer_name: Short,
  computer_dns_name: Type.Optional(Short),
  computer_sid: Type.Optional(Short),
  os_environment_display_string: Type.Optional(Short),
  build_version_string: Type.String({
    pattern: '^\\d{3}\\.\\d{3}\\.\\d{3}\\.\\d{5}$',
    description: 'four groups: three of three digits and one of five, e.g. 006.001.002.71109',
  }),
  build_id: Type.Optional(Count),
  boot_id: Short,
  network_adapters: Type.Optional(Type.Array(NetworkAdapter, { maxItems: 64 })),
  physical_memory_size: Type.Optional(Count),
  systemvolume_total_size: Type.Optional(Count),
  systemvolume_free_size: Type.Optional(Count),
};

export const OsType = Type.Union([Type.Literal('windows'), Type.Literal('osx'), Type.Literal('linux')]);
export const HostType = Type.Union([Type.Literal('workstation'), Type.Literal('server'), Type.Literal('domain_controller')]);

export const RegisterBody = Type.Object({
  install_code: Type.String({ minLength: 1, maxLength: 128 }),
  os_type: OsType,
  host_type: Type.Optional(HostType),
  ...HostFacts,
});
export type RegisterBody = Static<typeof RegisterBody>;

export const RegisterReply = Type.Object({
  sensor_id: Type.Integer(),
  sensor_secret: Type.String(),
  group_id: Type.Integer(),
  checkin_interval_seconds: Type.Integer(),
});
export type RegisterReply = Static<typeof RegisterReply>;

export const CompletedInstruction = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  result: Type.Optional(Type.Unknown()),
});

export const CheckinBody = Type.Object({
  ...HostFacts,
  computer_name: Type.Optional(Short),
  build_version_string: Type.Optional(HostFacts.build_version_string),
  boot_id: Type.Optional(Short),
  sensor_time: Type.Integer({ minimum: 0, description: 'the sensor\'s clock now, epoch ms (gives clock_delta)' }),
  uptime: Type.Optional(Type.Integer({ minimum: 0, description: 'seconds since the host booted' })),
  sensor_uptime: Type.Optional(Type.Integer({ minimum: 0, description: 'seconds since the sensor started' })),
  is_isolating: Type.Optional(Type.Boolean({ description: 'network isolation is in force on the host now' })),
  health_status: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  health_message: Type.Optional(Short),
  completed: Type.Optional(Type.Array(CompletedInstruction, { maxItems: 1000 })),
});
export type CheckinBody = Static<typeof CheckinBody>;

export const Instruction = Type.Object({
  id: Type.Integer(),
  type: Type.Union([
    Type.Literal('isolate'),
    Type.Literal('unisolate'),
    Type.Literal('ban_list'),
    Type.Literal('throttle'),
    Type.Literal('live_response_session'),
    Type.Literal('live_response'),
    Type.Literal('restart'),
    Type.Literal('uninstall'),
  ]),
  payload: Type.Optional(Type.Unknown()),
});
export type Instruction = Static<typeof Instruction>;

export const CheckinReply = Type.Object({
  server_time: Type.Integer(),
  next_checkin_seconds: Type.Integer(),
  instructions: Type.Array(Instruction),
});
export type CheckinReply = Static<typeof CheckinReply>;
