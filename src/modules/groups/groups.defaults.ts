/**
 * What a sensor group's settings are when nobody set them: given to a new group, and laid under
 * every stored group when it is read (so the seeded Default Group, and groups written before a
 * field existed, show a value for every field). Values follow reference core §7.2 and cbapi's
 * group-modify.yaml.
 */
import type { Config } from '../../config/schema.js';
import type { GroupSettings } from './groups.schemas.js';

const ONE_GIB = 1024 ** 3;

/** The URL sensors reach this server at, as far as the server itself knows: publicUrl when set. */
export function sensorBackendUrl(config: Pick<Config, 'host' | 'port' | 'tls' | 'publicUrl'>): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.tls ? 'https' : 'http'}://${host}:${config.port}`;
}

export function groupDefaults(sensorbackendServer: string): GroupSettings {
  return {
    sensorbackend_server: sensorbackendServer,
    datastore_server: null,
    sensor_exe_name: '',
    sensor_version: 'Manual',
    sensor_version_windows: 'Manual',
    sensor_version_osx: 'Manual',
    sensor_version_linux: 'Manual',
    alert_criticality: 3,
    banning_enabled: true,
    tamper_level: 0,
    max_licenses: -1,
    quota_eventlog_bytes: ONE_GIB,
    quota_eventlog_percent: 1,
    quota_storefile_bytes: ONE_GIB,
    quota_storefile_percent: 1,
    collect_cross_procs: true,
    collect_emet_events: true,
    collect_filemods: true,
    collect_filewritemd5s: true,
    collect_moduleinfo: true,
    collect_moduleloads: true,
    collect_netconns: true,
    collect_nonbinary_filewrites: true,
    collect_processes: true,
    collect_regmods: true,
    collect_storefiles: true,
    collect_usercontext: true,
    // AMSI collection is opt-in on Carbon Black 7.x (group-modify.yaml's default is false).
    collect_amsi: false,
    filter_known_dlls: false,
    process_filter_level: 0,
    vdi_enabled: false,
    address_resolution_hint: '',
    server_cert_id: 2,
    event_exclusions: [],
  };
}
