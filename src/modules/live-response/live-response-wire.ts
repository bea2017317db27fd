/**
 * Sessions, commands and files as the API shows them: the fields of the real 6.2 objects
 * (reference admin §7.2), times as epoch seconds with a fraction, storage_size as text.
 */
import type { SensorRecord } from '../sensors/sensors.store.js';
import type { Command, Session, SessionFile } from './live-response.schemas.js';
import type { CommandRecord, FileRecord, SessionRecord } from './live-response.store.js';

/** The session limits, in the units the session object reports them in. */
export interface SessionSettings {
  checkInTimeoutSeconds: number;
  sessionTimeoutSeconds: number;
  sensorWaitTimeoutSeconds: number;
  storageTtlDays: number;
}

const seconds = (ms: number): number => ms / 1000;

/** The first address of Carbon Black's "<ip>,<mac>|" adapter list. */
function firstAddress(adapters: string): string {
  return adapters.split('|')[0]?.split(',')[0] ?? '';
}

export function sessionWire(session: SessionRecord, sensor: SensorRecord | undefined, settings: SessionSettings): Session {
  return {
    id: session.id,
    sensor_id: session.sensorId,
    status: session.status,
    hostname: sensor?.computerName ?? '',
    address: sensor ? firstAddress(sensor.networkAdapters) : '',
    os_version: sensor?.osEnvironmentDisplayString ?? '',
    supported_commands: session.attach?.supportedCommands ?? [],
    drives: session.attach?.drives ?? [],
    current_working_directory: session.attach?.currentWorkingDirectory ?? '',
    create_time: seconds(session.createdMs),
    storage_size: String(session.storageBytes),
    storage_ttl: settings.storageTtlDays,
    check_in_timeout: settings.checkInTimeoutSeconds,
    session_timeout: settings.sessionTimeoutSeconds,
    sensor_wait_timeout: settings.sensorWaitTimeoutSeconds,
  };
}

export function commandWire(command: CommandRecord): Command {
  const wire: Command = {
    ...command.request.options,
    id: command.id,
    session_id: command.sessionId,
    sensor_id: command.sensorId,
    name: command.name,
    status: command.status,
    username: command.username,
    create_time: seconds(command.createdMs),
  };
  if (command.request.object !== undefined) wire.object = command.request.object;
  if (command.fileId !== null) wire.file_id = command.fileId;
  if (command.completedMs !== null) wire.completion = seconds(command.completedMs);
  if (command.outcome) {
    Object.assign(wire, command.outcome.output);
    wire.result_code = command.outcome.resultCode;
    wire.result_type = command.outcome.resultType;
    wire.result_desc = command.outcome.resultDesc;
  }
  return wire;
}

export function fileWire(file: FileRecord): SessionFile {
  return {
    id: file.id,
    session_id: file.sessionId,
    file_name: file.fileName,
    size: file.size ?? 0,
    size_uploaded: file.size ?? 0,
    status: file.size === null ? 1 : 0,
    create_time: seconds(file.createdMs),
  };
}
