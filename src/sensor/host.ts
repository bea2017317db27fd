/**
 * Who a simulated endpoint is: its OS, role, name, addresses, user and clock, and its programs
 * resolved once into ready-made strings, binaries and destinations so that generating an event
 * costs a few random draws and no string building.
 */
import { createHash } from 'node:crypto';
import type { RegisterBody } from '../modules/sensors/sensor-protocol.schemas.js';
import type { Binary, BinaryCatalog } from './binaries.js';
import {
  ACCOUNTS, DESTINATIONS, DNS_SUFFIX, FILES, HOST_PROFILES, REGISTRY, USERS, WINDOWS_DOMAIN,
  render, varies, type Destination, type HostProfile, type Os, type OsCatalog, type Program, type Weighted,
} from './catalog.js';
import { LINUX } from './programs.linux.js';
import { MACOS } from './programs.macos.js';
import { WINDOWS } from './programs.windows.js';
import { Random, weighted } from './random.js';

const CATALOGS: Record<Os, OsCatalog> = { windows: WINDOWS, linux: LINUX, osx: MACOS };
/** Templates with random parts are rendered this many ways per host. */
const VARIANTS = 3;
const EXECUTABLE_FILE_TYPES = new Set([1, 2, 3]);

export type Kind = 'net' | 'file' | 'reg' | 'cross';
export interface Target extends Destination { readonly v6: boolean; readonly ja3s: string | undefined }
export interface FileTarget { readonly path: string; readonly fileType: number; readonly md5?: string; readonly sha256?: string }

/** A program as this host runs it. */
export interface Resolved {
  readonly key: string;
  readonly program: Program;
  readonly image: Binary;
  readonly cmdlines: readonly string[];
  readonly username: string;
  readonly uid: string | undefined;
  readonly modules: readonly Binary[];
  /** What its activity consists of, by weight; empty when it only starts, loads and ends. */
  readonly kinds: Weighted<Kind>;
  readonly targets: readonly Target[];
  readonly files: readonly FileTarget[];
  readonly keys: readonly string[];
  readonly ja3: string;
  /** Sum of the program's spawn weights: how likely it is to be the next parent. */
  readonly spawnWeight: number;
}

export class Host {
  readonly os: Os;
  readonly profile: HostProfile;
  readonly catalog: OsCatalog;
  readonly hostname: string;
  /** Sensor clock minus wall clock, ms. */
  readonly skewMs: number;
  /** Uptime at the simulation's start, ms. */
  readonly uptimeMs: number;
  readonly ip4: string;
  readonly ip6: string;
  readonly facts: Omit<RegisterBody, 'install_code'>;

  private readonly random: Random;
  private readonly vars: Readonly<Record<string, string>>;
  private readonly user: string;
  private readonly userSid: string;
  private readonly resolved = new Map<string, Resolved>();

  constructor(
    private readonly seed: string,
    index: number,
    private readonly binaries: BinaryCatalog,
  ) {
    this.random = new Random(`${seed}/host/${index}`);
    this.profile = weighted(this.random, HOST_PROFILES);
    this.os = this.profile.os;
    this.catalog = CATALOGS[this.os];
    this.hostname = this.profile.name.replace('{nn}', String(index + 1).padStart(2, '0'));
    this.skewMs = this.random.between(-2500, 2500);
    this.uptimeMs = this.random.between(3_600, 14 * 86_400) * 1000;
    this.user = this.random.pick(USERS);
    const domain = new Random(`${seed}/domain`);
    this.userSid = `S-1-5-21-${domain.uint32()}-${domain.uint32()}-${domain.uint32()}-${1104 + USERS.indexOf(this.user)}`;
    this.vars = { user: this.user, sid: this.userSid.toLowerCase(), host: this.hostname };
    const subnet = { windows: 1, linux: 2, osx: 3 }[this.os];
    this.ip4 = `10.${subnet}.${Math.floor(index / 250) % 256}.${(index % 250) + 2}`;
    this.ip6 = `2001:db8:${subnet}::${(index + 2).toString(16)}`;
    const oui = { windows: '00155d', linux: '525400', osx: 'f01898' }[this.os];
    this.facts = {
      os_type: this.os,
      host_type: this.profile.hostType,
      computer_name: this.os === 'windows' ? this.hostname.toUpperCase() : this.hostname,
      computer_dns_name: `${this.hostname}.${DNS_SUFFIX}`,
      ...(this.os === 'windows' ? { computer_sid: `S-1-5-21-${this.random.uint32()}-${this.random.uint32()}-${this.random.uint32()}` } : {}),
      os_environment_display_string: this.random.pick(this.profile.display),
      build_version_string: this.profile.buildVersion,
      build_id: 3,
      boot_id: String(this.random.between(1, 400)),
      network_adapters: [{ ip: this.ip4, mac: oui + this.random.hex(6) }],
      physical_memory_size: this.random.pick([8, 16, 32, 64]) * 2 ** 30,
      systemvolume_total_size: this.random.pick([256, 512, 1024]) * 10 ** 9,
      systemvolume_free_size: this.random.between(20, 200) * 10 ** 9,
    };
  }

  program(key: string): Resolved {
    const cached = this.resolved.get(key);
    if (cached) return cached;
    const program = this.catalog.programs[key];
    if (!program) throw new Error(`no program "${key}" for ${this.os}`);
    const random = this.random.fork(`program/${key}`);
    const path = render(program.path, this.vars, random);
    const image = this.binaries.get({ key: program.unique ? `${this.hostname}|${path}` : `${this.os}|${path}`, path, os: this.os, desc: program.desc });
    const [username, uid] = this.account(program.runAs);
    const targets = (program.dests ?? []).flatMap((name) => DESTINATIONS[name] ?? []).map((target) => ({
      ...target, v6: target.ip.includes(':'), ja3s: !target.inbound && !target.udp && target.port !== 80 ? md5(`ja3s/${target.ip}`) : undefined,
    }));
    const files = (program.files ?? []).flatMap((name) => this.fileTargets(name));
    const keys = (program.keys ?? []).flatMap((name) => (REGISTRY[name] ?? []).map((template) => render(template, this.vars, random)));
    const kinds: [Kind, number][] = [
      ['net', targets.length ? program.net ?? 1 : 0],
      ['file', files.length ? program.file ?? 1 : 0],
      ['reg', keys.length ? program.reg ?? 1 : 0],
      ['cross', program.crossproc ? program.cross ?? 1 : 0],
    ];
    const resolved: Resolved = {
      key, program, image, username, uid, targets, files, keys,
      cmdlines: program.cmdlines.flatMap((template) => Array.from({ length: varies(template) ? VARIANTS : 1 }, () => render(template, this.vars, random))),
      modules: (program.modules ?? []).map((module) => this.binaries.get({ key: `${this.os}|${module}`, path: module, os: this.os })),
      kinds: kinds.filter(([, weight]) => weight > 0),
      ja3: md5(`ja3/${image.path}`),
      spawnWeight: (program.spawns ?? []).reduce((sum, [, weight]) => sum + weight, 0),
    };
    this.resolved.set(key, resolved);
    return resolved;
  }

  /** A group's files on this host; executables get the hash of what was written. */
  private fileTargets(group: string): FileTarget[] {
    const random = this.random.fork(`files/${group}`);
    return (FILES[group] ?? []).flatMap(([template, fileType]) =>
      Array.from({ length: varies(template) ? VARIANTS : 1 }, () => {
        const path = render(template, this.vars, random);
        if (!EXECUTABLE_FILE_TYPES.has(fileType)) return { path, fileType };
        const written = `${this.seed}/file/${this.hostname}/${path}`;
        return { path, fileType, md5: md5(written), sha256: createHash('sha256').update(written).digest('hex') };
      }));
  }

  private account(runAs: string): [username: string, uid: string | undefined] {
    if (runAs === 'none') return ['', undefined];
    if (this.os === 'windows') {
      switch (runAs) {
        case 'system': return ['SYSTEM', 'S-1-5-18'];
        case 'local_service': return ['NT AUTHORITY\\LOCAL SERVICE', 'S-1-5-19'];
        case 'network_service': return ['NT AUTHORITY\\NETWORK SERVICE', 'S-1-5-20'];
        case 'user': return [`${WINDOWS_DOMAIN}\\${this.user}`, this.userSid];
        default: return [runAs, ACCOUNTS.windows[runAs]];
      }
    }
    if (runAs === 'user') return [this.user, this.os === 'osx' ? '501' : String(1000 + (USERS.indexOf(this.user) % 4))];
    const name = runAs === 'system' ? 'root' : runAs;
    return [name, ACCOUNTS[this.os][name]];
  }
}

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}
