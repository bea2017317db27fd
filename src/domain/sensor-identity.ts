/**
 * Who sent a batch, a check-in or an upload: the sensor facts that ingest, the event store and
 * the modules that answer sensors (bans, binaries, live response, throttle) act on. It is a
 * domain type rather than part of the sensors module so that those consumers need not depend on
 * the module that registers sensors, which itself calls into them.
 */
export type OsType = 'windows' | 'osx' | 'linux';
export type HostType = 'workstation' | 'server' | 'domain_controller';

export interface SensorIdentity {
  id: number;
  groupId: number;
  hostname: string;
  hostType: HostType;
  osType: OsType;
}
