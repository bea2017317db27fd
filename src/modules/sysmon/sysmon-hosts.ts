/**
 * Each host that sends Sysmon events is a sensor of the ingest key's group, created the first
 * time the host is seen. The sensor has no agent and no secret (so the sensor protocol never
 * accepts it); "last check-in" is when its events last arrived.
 *
 * Its batches are numbered here, in memory, from the sensor's last committed sequence: an entry is
 * kept for every host for the life of the process, since forgetting one while a batch is in flight
 * would hand out a sequence again and the event store would take that batch for a duplicate.
 */
import type { SensorIdentity } from '../../domain/sensor-identity.js';
import type { SysmonHost } from '../../ingest/sysmon/sysmon-decoder.js';
import type { SensorsStore } from '../sensors/sensors.store.js';
import type { SysmonHostsStore } from './sysmon-hosts.store.js';

/** A host's sensor, and the sequence its last batch took. */
export interface HostSensor {
  identity: SensorIdentity;
  lastSequence: number;
}

/** No secret hashes to this: a Sysmon host cannot authenticate to the sensor protocol. */
const NO_SECRET = '';

export class SysmonHosts {
  private readonly byName = new Map<string, Promise<HostSensor>>();
  private readonly byId = new Map<number, HostSensor>();

  constructor(
    private readonly sensors: Pick<SensorsStore, 'register' | 'get' | 'checkin'>,
    private readonly store: SysmonHostsStore,
    /** How long after its last events a host still shows online. */
    private readonly onlineMs: number,
  ) {}

  /** The host's sensor, created on first sight; concurrent requests for a new host get the one sensor. */
  sensorFor(groupId: number, host: SysmonHost, nowMs: number): Promise<HostSensor> {
    const key = `${groupId}:${host.name.toLowerCase()}`;
    let sensor = this.byName.get(key);
    if (sensor === undefined) {
      sensor = this.load(groupId, host, nowMs);
      this.byName.set(key, sensor);
      sensor.catch(() => this.byName.delete(key));
    }
    return sensor;
  }

  /** A host's sensor this process has stored events for. */
  known(sensorId: number): HostSensor | undefined {
    return this.byId.get(sensorId);
  }

  nextSequence(sensor: HostSensor): number {
    return ++sensor.lastSequence;
  }

  /** The host's events arrived now: it shows online for a while. */
  async seen(sensor: HostSensor, nowMs: number): Promise<void> {
    await this.sensors.checkin([{ id: sensor.identity.id, facts: { lastCheckinMs: nowMs, nextCheckinMs: nowMs + this.onlineMs, clockDeltaMs: 0 } }]);
  }

  private async load(groupId: number, host: SysmonHost, nowMs: number): Promise<HostSensor> {
    const hostName = host.name.toLowerCase();
    const existing = await this.store.sensorOf(groupId, hostName);
    const record = existing === undefined ? undefined : await this.sensors.get(existing);
    if (record) return this.remember({ identity: identityOf(record), lastSequence: record.lastSequence });
    const created = await this.sensors.register({
      groupId, agent: 'sysmon', secretHash: NO_SECRET, osType: host.osType, hostType: 'workstation', registrationMs: nowMs,
      computerName: host.name, computerDnsName: host.dnsName, computerSid: '',
      osEnvironmentDisplayString: host.osType === 'linux' ? 'Linux (Sysmon for Linux)' : 'Windows (Sysmon)',
      buildVersionString: 'Sysmon', buildId: 0, bootId: '0', networkAdapters: '',
      physicalMemorySize: 0, systemvolumeTotalSize: 0, systemvolumeFreeSize: 0,
    });
    await this.store.link(groupId, hostName, created.id);
    return this.remember({ identity: identityOf(created), lastSequence: created.lastSequence });
  }

  private remember(sensor: HostSensor): HostSensor {
    this.byId.set(sensor.identity.id, sensor);
    return sensor;
  }
}

function identityOf(record: { id: number; groupId: number; computerName: string; hostType: SensorIdentity['hostType']; osType: SensorIdentity['osType'] }): SensorIdentity {
  return { id: record.id, groupId: record.groupId, hostname: record.computerName.toLowerCase(), hostType: record.hostType, osType: record.osType };
}
