/**
 * The sensor builds a server knows. Carbon Black listed the sensor builds it had installers for;
 * Vigil ships no installers of its own, so it lists the builds its sensors run: every
 * build_version_string of a registered sensor the caller may see, by OS family.
 */
import type { Principal } from '../../domain/permissions.js';
import type { Sensor } from '../sensors/sensors.schemas.js';
import type { SensorBuilds } from './builds.schemas.js';

/** The sensors a caller may see (the sensors service). */
export interface VisibleSensors {
  list(actor: Principal, query: Record<string, never>): Promise<Pick<Sensor, 'os_type' | 'build_version_string'>[]>;
}

/** The sensor record's os_type codes (1 Windows, 2 macOS, 3 Linux) to the keys of the reply. */
const FAMILY: Record<number, keyof SensorBuilds> = { 1: 'Windows', 2: 'OSX', 3: 'Linux' };

export class BuildsService {
  constructor(private readonly sensors: VisibleSensors) {}

  async list(actor: Principal): Promise<SensorBuilds> {
    const seen: Record<keyof SensorBuilds, Set<string>> = { Windows: new Set(), Linux: new Set(), OSX: new Set() };
    for (const sensor of await this.sensors.list(actor, {})) {
      const family = FAMILY[sensor.os_type];
      if (family && sensor.build_version_string) seen[family].add(sensor.build_version_string);
    }
    const builds = (family: keyof SensorBuilds) =>
      // Registration holds versions to zero-padded fixed widths ("006.001.002.71109"), so text order is version order.
      [...seen[family]].sort().reverse().map((version_string) => ({ version_string }));
    return { Windows: builds('Windows'), Linux: builds('Linux'), OSX: builds('OSX') };
  }
}
