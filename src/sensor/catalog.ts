/**
 * What simulated endpoints are made of, shared by every OS: the program model, vendors and their
 * signatures, accounts, network destinations, file and registry paths, and host naming. The
 * programs themselves live in programs.{windows,linux,macos}.ts. Templates may hold placeholders
 * that an endpoint fills once ({user}, {sid}, {host}) or per variant ({hex}, {hex32}, {n}, {date}).
 */
import type { RegisterBody } from '../modules/sensors/sensor-protocol.schemas.js';
import type { Random } from './random.js';

export type Os = RegisterBody['os_type'];
export type HostType = NonNullable<RegisterBody['host_type']>;
export type Range = readonly [min: number, max: number];
export type Weighted<T> = readonly (readonly [T, number])[];

/** Windows built-in identities, the endpoint's user, no token at all, or a named service account. */
export type RunAs = 'system' | 'local_service' | 'network_service' | 'user' | 'none' | (string & {});

export type CrossprocAction = 'remote_thread' | 'process_open' | 'thread_open';

export interface Program {
  /** The image as the sensor reports it (lowercase on Windows). */
  readonly path: string;
  readonly cmdlines: readonly string[];
  readonly runAs: RunAs;
  /** File description in the version resource (Windows). */
  readonly desc?: string;
  readonly modules?: readonly string[];
  /**
   * Events after start (and per later burst when `long`), split by the relative weights below; a
   * kind whose group list is given but whose weight is not weighs 1.
   */
  readonly act?: Range;
  readonly net?: number;
  readonly file?: number;
  readonly reg?: number;
  readonly cross?: number;
  /** Names of DESTINATIONS, FILES and REGISTRY groups this program uses. */
  readonly dests?: readonly string[];
  readonly files?: readonly string[];
  readonly keys?: readonly string[];
  readonly crossproc?: readonly [CrossprocAction, number];
  /** Children started during the process's own start-up. */
  readonly children?: Weighted<string>;
  readonly childCount?: Range;
  /** Children a running `long` process starts later on. */
  readonly spawns?: Weighted<string>;
  /** Keeps running after start-up (a service, a shell, a browser) until an exit activity ends it. */
  readonly long?: boolean;
  /** The image is this endpoint's own (a download, a local tool): unique content, so a unique hash. */
  readonly unique?: boolean;
}

export interface BootNode {
  readonly program: string;
  readonly children?: readonly BootNode[];
}

export interface OsCatalog {
  readonly programs: Readonly<Record<string, Program>>;
  bootTree(hostType: HostType, role: string): BootNode;
}

export interface Vendor {
  readonly prefix: string;
  readonly company?: string;
  readonly product?: string;
  readonly version?: string;
  /** The signing publisher; unsigned when absent. */
  readonly publisher?: string;
}

/** Matched by lowercase path prefix, first match wins; the catch-alls come last. */
export const VENDORS: readonly Vendor[] = [
  { prefix: 'c:\\programdata\\microsoft\\windows defender\\', company: 'Microsoft Corporation', product: 'Microsoft Malware Protection', version: '4.18.23110.3', publisher: 'Microsoft Corporation' },
  { prefix: 'c:\\program files\\microsoft office\\', company: 'Microsoft Corporation', product: 'Microsoft Office', version: '16.0.17029.20068', publisher: 'Microsoft Corporation' },
  { prefix: 'c:\\program files\\common files\\microsoft shared\\', company: 'Microsoft Corporation', product: 'Microsoft Office', version: '16.0.17029.20068', publisher: 'Microsoft Corporation' },
  { prefix: 'c:\\program files\\microsoft onedrive\\', company: 'Microsoft Corporation', product: 'Microsoft OneDrive', version: '23.226.1031.0003', publisher: 'Microsoft Corporation' },
  { prefix: 'c:\\program files\\windowsapps\\msteams', company: 'Microsoft Corporation', product: 'Microsoft Teams', version: '23320.3021.2567.4799', publisher: 'Microsoft Corporation' },
  { prefix: 'c:\\program files\\microsoft sql server\\', company: 'Microsoft Corporation', product: 'Microsoft SQL Server', version: '2019.150.4345.5', publisher: 'Microsoft Corporation' },
  { prefix: 'c:\\program files\\google\\', company: 'Google LLC', product: 'Google Chrome', version: '120.0.6099.130', publisher: 'Google LLC' },
  { prefix: 'c:\\program files\\mozilla firefox\\', company: 'Mozilla Corporation', product: 'Firefox', version: '121.0.0.8695', publisher: 'Mozilla Corporation' },
  { prefix: 'c:\\program files\\7-zip\\', company: 'Igor Pavlov', product: '7-Zip', version: '23.01' },
  { prefix: 'c:\\windows\\', company: 'Microsoft Corporation', product: 'Microsoft® Windows® Operating System', version: '10.0.19041.3636', publisher: 'Microsoft Windows' },
  { prefix: 'c:\\' },
  { prefix: '/applications/google chrome.app/', company: 'Google LLC', product: 'Google Chrome', version: '120.0.6099.129', publisher: 'Developer ID Application: Google LLC (EQHXZ8M8AV)' },
  { prefix: '/applications/slack.app/', company: 'Slack Technologies, Inc.', product: 'Slack', version: '4.35.131', publisher: 'Developer ID Application: Slack Technologies, Inc. (BQR82RBBHL)' },
  { prefix: '/applications/figma.app/', company: 'Figma, Inc.', product: 'Figma', version: '116.15.4', publisher: 'Developer ID Application: Figma, Inc. (T8RA8NE3B7)' },
  { prefix: '/opt/homebrew/' },
  { prefix: '/users/' },
  { prefix: '/system/', company: 'Apple Inc.', product: 'macOS', version: '14.2.1', publisher: 'Software Signing' },
  { prefix: '/applications/', company: 'Apple Inc.', product: 'macOS', version: '14.2.1', publisher: 'Software Signing' },
  { prefix: '/library/developer/', company: 'Apple Inc.', product: 'Xcode Command Line Tools', version: '15.1', publisher: 'Software Signing' },
  { prefix: '/' },
];

export function vendorOf(path: string, os: Os): Vendor {
  const lower = path.toLowerCase();
  if (os === 'osx' && /^\/(usr|bin|sbin)\//.test(lower)) return VENDORS.find((v) => v.prefix === '/system/')!;
  return VENDORS.find((vendor) => lower.startsWith(vendor.prefix)) ?? { prefix: '' };
}

/** Service accounts by OS: name → uid as the sensor reports it. */
export const ACCOUNTS: Readonly<Record<Os, Readonly<Record<string, string>>>> = {
  windows: { 'Window Manager\\DWM-1': 'S-1-5-90-0-1', 'NT SERVICE\\MSSQLSERVER': 'S-1-5-80-3880718306-3832830129-1677859214-2598158968-1052248003' },
  linux: { root: '0', 'www-data': '33', postgres: '114', 'systemd-resolve': '101', syslog: '104', _apt: '105', app: '998' },
  osx: { root: '0', _windowserver: '88', _spotlight: '89', _softwareupdate: '200' },
};

export const USERS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'oscar', 'peggy', 'trent', 'victor', 'wendy'];

export const WINDOWS_DOMAIN = 'CORP';
export const DNS_SUFFIX = 'corp.example';

export interface Destination {
  readonly ip: string;
  /** The service port: remote for outbound connections, local for inbound ones. */
  readonly port: number;
  readonly domain?: string;
  readonly udp?: boolean;
  readonly inbound?: boolean;
}

/** Public names with their real-world addresses; attacker and client addresses are documentation ranges. */
export const DESTINATIONS: Readonly<Record<string, readonly Destination[]>> = {
  google: [
    { domain: 'www.google.com', ip: '142.250.72.196', port: 443 },
    { domain: 'www.google.com', ip: '2607:f8b0:4005:80c::2004', port: 443 },
    { domain: 'update.googleapis.com', ip: '142.250.191.67', port: 443 },
    { domain: 'clients2.google.com', ip: '172.217.14.110', port: 443 },
    { domain: 'accounts.google.com', ip: '142.251.33.77', port: 443 },
  ],
  web: [
    { domain: 'example.com', ip: '93.184.216.34', port: 443 },
    { domain: 'en.wikipedia.org', ip: '208.80.154.224', port: 443 },
    { domain: 'stackoverflow.com', ip: '151.101.1.69', port: 443 },
    { domain: 'www.linkedin.com', ip: '13.107.42.14', port: 443 },
    { domain: 'www.cloudflare.com', ip: '2606:4700::6810:84e5', port: 443 },
    { domain: 'github.com', ip: '140.82.113.3', port: 443 },
  ],
  microsoft: [
    { domain: 'www.microsoft.com', ip: '23.45.120.47', port: 443 },
    { domain: 'settings-win.data.microsoft.com', ip: '40.77.226.250', port: 443 },
    { domain: 'login.microsoftonline.com', ip: '20.190.151.68', port: 443 },
    { domain: 'ctldl.windowsupdate.com', ip: '93.184.221.240', port: 80 },
  ],
  office: [
    { domain: 'outlook.office365.com', ip: '52.96.165.18', port: 443 },
    { domain: 'outlook.office365.com', ip: '2603:1036:304:2847::2', port: 443 },
    { domain: 'teams.microsoft.com', ip: '52.113.194.132', port: 443 },
    { domain: 'corp-my.sharepoint.com', ip: '13.107.136.10', port: 443 },
    { domain: 'login.microsoftonline.com', ip: '20.190.151.68', port: 443 },
  ],
  windowsupdate: [
    { domain: 'download.windowsupdate.com', ip: '8.253.148.126', port: 80 },
    { domain: 'fe3cr.delivery.mp.microsoft.com', ip: '20.49.150.241', port: 443 },
  ],
  defender: [
    { domain: 'wdcp.microsoft.com', ip: '20.42.73.26', port: 443 },
    { domain: 'go.microsoft.com', ip: '23.52.88.181', port: 443 },
  ],
  mozilla: [
    { domain: 'detectportal.firefox.com', ip: '34.107.221.82', port: 80 },
    { domain: 'incoming.telemetry.mozilla.org', ip: '34.120.208.123', port: 443 },
    { domain: 'firefox.settings.services.mozilla.com', ip: '34.149.100.209', port: 443 },
  ],
  github: [{ domain: 'github.com', ip: '140.82.113.3', port: 443 }, { domain: 'objects.githubusercontent.com', ip: '185.199.108.133', port: 443 }],
  pypi: [{ domain: 'pypi.org', ip: '151.101.0.223', port: 443 }, { domain: 'pypi.org', ip: '2a04:4e42::223', port: 443 }, { domain: 'files.pythonhosted.org', ip: '151.101.1.63', port: 443 }],
  ubuntu: [{ domain: 'archive.ubuntu.com', ip: '91.189.91.83', port: 80 }, { domain: 'security.ubuntu.com', ip: '185.125.190.36', port: 80 }],
  docker: [{ domain: 'registry-1.docker.io', ip: '54.236.113.205', port: 443 }, { domain: 'production.cloudflare.docker.com', ip: '104.16.100.207', port: 443 }],
  apple: [
    { domain: 'gateway.icloud.com', ip: '17.248.185.10', port: 443 },
    { domain: 'swscan.apple.com', ip: '17.253.17.201', port: 443 },
    { domain: 'www.apple.com', ip: '17.253.144.10', port: 443 },
    { domain: 'init.itunes.apple.com', ip: '2a01:b740:a42:100::1f', port: 443 },
  ],
  slack: [{ domain: 'wss-primary.slack.com', ip: '34.226.36.52', port: 443 }, { domain: 'edgeapi.slack.com', ip: '44.219.3.186', port: 443 }],
  figma: [{ domain: 'www.figma.com', ip: '18.165.83.92', port: 443 }],
  dns: [{ ip: '10.0.0.10', port: 53, udp: true }],
  ntp: [{ domain: 'time.windows.com', ip: '168.61.215.74', port: 123, udp: true }],
  dc: [
    { domain: `dc-01.${DNS_SUFFIX}`, ip: '10.0.0.10', port: 389 },
    { domain: `dc-01.${DNS_SUFFIX}`, ip: '10.0.0.10', port: 88 },
    { domain: `dc-01.${DNS_SUFFIX}`, ip: '10.0.0.10', port: 445 },
  ],
  fileshare: [{ domain: `fs-01.${DNS_SUFFIX}`, ip: '10.0.0.20', port: 445 }],
  rdp: [{ domain: `srv-app-01.${DNS_SUFFIX}`, ip: '10.0.0.31', port: 3389 }],
  ssh: [{ domain: `db-01.${DNS_SUFFIX}`, ip: '10.2.0.12', port: 22 }, { domain: `build-02.${DNS_SUFFIX}`, ip: '10.2.0.14', port: 22 }],
  database: [{ domain: `db-01.${DNS_SUFFIX}`, ip: '10.2.0.12', port: 5432 }],
  metadata: [{ ip: '169.254.169.254', port: 80 }],
  suspicious: [
    { domain: 'cdn-update-sync.top', ip: '203.0.113.57', port: 443 },
    { domain: 'telemetry-msft.info', ip: '203.0.113.91', port: 8080 },
    { ip: '198.51.100.23', port: 4444 },
  ],
  'inbound-web': [{ ip: '198.51.100.14', port: 443, inbound: true }, { ip: '198.51.100.77', port: 443, inbound: true }, { ip: '2001:db8:4::1f', port: 443, inbound: true }],
  'inbound-ssh': [{ ip: '10.9.0.5', port: 22, inbound: true }],
  'inbound-db': [{ ip: '10.2.0.21', port: 5432, inbound: true }, { ip: '10.2.0.22', port: 5432, inbound: true }],
  'inbound-sql': [{ ip: '10.1.0.41', port: 1433, inbound: true }],
  'inbound-smb': [{ ip: '10.1.0.57', port: 445, inbound: true }, { ip: '10.1.0.63', port: 445, inbound: true }],
  'inbound-ldap': [{ ip: '10.1.0.57', port: 389, inbound: true }, { ip: '10.1.0.63', port: 88, inbound: true }],
  'inbound-app': [{ ip: '10.2.0.5', port: 3000, inbound: true }],
};

/**
 * `[path template, file type]`, the type in Carbon Black's filemod codes: 0 unknown, 1 PE, 2 ELF,
 * 3 Mach-O, 16 legacy Office, 17 Office Open XML, 48 PDF, 64 zip, 68 tar. Executables written get a
 * hash on their last write.
 */
export const FILES: Readonly<Record<string, readonly (readonly [path: string, fileType: number])[]>> = {
  'system-files': [['c:\\windows\\system32\\config\\software.log1', 0], ['c:\\windows\\system32\\logfiles\\wmi\\rtbackup\\etwrteventlog-system.etl', 0], ['c:\\$logfile', 0]],
  prefetch: [['c:\\windows\\prefetch\\chrome.exe-{hex}.pf', 0], ['c:\\windows\\prefetch\\cmd.exe-{hex}.pf', 0], ['c:\\windows\\prefetch\\powershell.exe-{hex}.pf', 0]],
  'chrome-cache': [
    ['c:\\users\\{user}\\appdata\\local\\google\\chrome\\user data\\default\\cache\\cache_data\\f_{hex}', 0],
    ['c:\\users\\{user}\\appdata\\local\\google\\chrome\\user data\\default\\history-journal', 0],
    ['c:\\users\\{user}\\appdata\\local\\google\\chrome\\user data\\default\\network\\cookies-journal', 0],
  ],
  downloads: [['c:\\users\\{user}\\downloads\\invoice_{n}.pdf', 48], ['c:\\users\\{user}\\downloads\\report-{date}.xlsx', 17], ['c:\\users\\{user}\\downloads\\tools-{n}.zip', 64], ['c:\\users\\{user}\\downloads\\installer_{hex}.exe', 1]],
  'firefox-profile': [['c:\\users\\{user}\\appdata\\roaming\\mozilla\\firefox\\profiles\\{hex}.default-release\\places.sqlite-wal', 0], ['c:\\users\\{user}\\appdata\\local\\mozilla\\firefox\\profiles\\{hex}.default-release\\cache2\\entries\\{hex32}', 0]],
  'office-docs': [
    ['c:\\users\\{user}\\documents\\q{n} budget review.docx', 17], ['c:\\users\\{user}\\documents\\~$ budget review.docx', 0],
    ['c:\\users\\{user}\\appdata\\roaming\\microsoft\\word\\autorecovery save of document{n}.asd', 0], ['c:\\users\\{user}\\documents\\forecast {date}.xlsx', 17],
    ['c:\\users\\{user}\\documents\\legacy contract {n}.doc', 16],
  ],
  outlook: [['c:\\users\\{user}\\appdata\\local\\microsoft\\windows\\inetcache\\content.outlook\\{hex}\\invoice_{n}.docx', 17], ['c:\\users\\{user}\\appdata\\local\\microsoft\\outlook\\{user}@corp.example.ost', 0]],
  'user-docs': [['c:\\users\\{user}\\desktop\\notes.txt', 0], ['c:\\users\\{user}\\documents\\todo-{date}.txt', 0], ['c:\\users\\{user}\\appdata\\roaming\\microsoft\\windows\\recent\\notes.lnk', 0]],
  'win-temp': [['c:\\users\\{user}\\appdata\\local\\temp\\__psscriptpolicytest_{hex}.ps1', 0], ['c:\\windows\\temp\\{hex}.tmp', 0], ['c:\\users\\{user}\\appdata\\local\\temp\\7z{hex}\\setup.exe', 1]],
  'ps-history': [['c:\\users\\{user}\\appdata\\roaming\\microsoft\\windows\\powershell\\psreadline\\consolehost_history.txt', 0]],
  'dropped': [['c:\\users\\{user}\\appdata\\local\\temp\\upd{hex}.dll', 1], ['c:\\programdata\\{hex}\\svchost.exe', 1]],
  defender: [['c:\\programdata\\microsoft\\windows defender\\support\\mplog-{date}-{n}.log', 0], ['c:\\programdata\\microsoft\\windows defender\\scans\\mpcache-{hex}.bin', 0]],
  'windows-update': [['c:\\windows\\softwaredistribution\\download\\{hex32}\\windows10.0-kb{n}-x64.cab', 0], ['c:\\windows\\softwaredistribution\\datastore\\logs\\edb.log', 0]],
  installer: [['c:\\windows\\installer\\{hex}.msi', 0], ['c:\\windows\\installer\\msi{hex}.tmp', 1]],
  onedrive: [['c:\\users\\{user}\\onedrive - corp\\documents\\shared plan {n}.docx', 17], ['c:\\users\\{user}\\appdata\\local\\microsoft\\onedrive\\logs\\business1\\syncdiagnostics.log', 0]],
  search: [['c:\\programdata\\microsoft\\search\\data\\applications\\windows\\windows.edb', 0], ['c:\\programdata\\microsoft\\search\\data\\applications\\windows\\gather\\{hex}.gthr', 0]],
  sql: [['c:\\program files\\microsoft sql server\\mssql15.mssqlserver\\mssql\\data\\sales.mdf', 0], ['c:\\program files\\microsoft sql server\\mssql15.mssqlserver\\mssql\\data\\sales_log.ldf', 0]],
  journal: [['/var/log/journal/{hex32}/system.journal', 0], ['/var/log/journal/{hex32}/user-1000.journal', 0]],
  'nginx-logs': [['/var/log/nginx/access.log', 0], ['/var/log/nginx/error.log', 0]],
  'linux-temp': [['/tmp/tmp{hex}', 0], ['/tmp/.{hex}.swp', 0], ['/var/tmp/systemd-private-{hex32}-chrony.service-{hex}/tmp', 0]],
  'linux-home': [['/home/{user}/.bash_history', 0], ['/home/{user}/.viminfo', 0], ['/home/{user}/.cache/pip/http/{hex}/{hex32}', 0], ['/home/{user}/app/.git/FETCH_HEAD', 0], ['/home/{user}/app/dist/server-{n}.tar.gz', 68]],
  apt: [['/var/lib/apt/lists/partial/archive.ubuntu.com_ubuntu_dists_jammy-updates_InRelease', 0], ['/var/cache/apt/archives/partial/libssl3_3.0.2-0ubuntu1.{n}_amd64.deb', 0]],
  'linux-logs': [['/var/log/syslog', 0], ['/var/log/auth.log', 0], ['/var/log/syslog.{n}.gz', 0]],
  postgres: [['/var/lib/postgresql/14/main/base/16384/{n}', 0], ['/var/lib/postgresql/14/main/pg_wal/0000000100000000000000{hex}', 0]],
  docker: [['/var/lib/docker/overlay2/{hex32}/diff/app/server', 2], ['/var/lib/docker/containers/{hex32}/{hex32}-json.log', 0]],
  'linux-drop': [['/tmp/.x/kworkerd', 2], ['/dev/shm/.{hex}', 2]],
  'safari-cache': [['/Users/{user}/Library/Caches/com.apple.Safari/Cache.db-wal', 0], ['/Users/{user}/Library/Safari/History.db-wal', 0]],
  'mac-chrome': [['/Users/{user}/Library/Application Support/Google/Chrome/Default/History-journal', 0], ['/Users/{user}/Library/Caches/Google/Chrome/Default/Cache/Cache_Data/f_{hex}', 0]],
  'mac-downloads': [['/Users/{user}/Downloads/brief-{date}.pdf', 48], ['/Users/{user}/Downloads/assets-{n}.zip', 64], ['/Users/{user}/Desktop/.DS_Store', 0]],
  'mac-design': [['/Users/{user}/Documents/Design/landing-v{n}.fig', 0], ['/Users/{user}/Library/Application Support/Figma/DesktopProfile/v{n}/Cookies', 0]],
  'mac-home': [['/Users/{user}/.zsh_history', 0], ['/Users/{user}/src/site/.git/index', 0], ['/private/var/folders/zz/{hex}/T/TemporaryItems/{hex}', 0]],
  'mac-slack': [['/Users/{user}/Library/Application Support/Slack/IndexedDB/https_app.slack.com_0.indexeddb.leveldb/{n}.log', 0]],
  spotlight: [['/System/Volumes/Data/.Spotlight-V100/Store-V2/{hex32}/journalAttr.{n}', 0]],
};

export const REGISTRY: Readonly<Record<string, readonly string[]>> = {
  run: [
    '\\registry\\user\\{sid}\\software\\microsoft\\windows\\currentversion\\run\\onedrive',
    '\\registry\\machine\\software\\microsoft\\windows\\currentversion\\run\\securityhealth',
  ],
  'run-suspicious': [
    '\\registry\\machine\\software\\microsoft\\windows\\currentversion\\run\\windowsupdater',
    '\\registry\\user\\{sid}\\software\\microsoft\\windows\\currentversion\\runonce\\{hex}',
  ],
  explorer: [
    '\\registry\\user\\{sid}\\software\\microsoft\\windows\\currentversion\\explorer\\recentdocs\\.docx',
    '\\registry\\user\\{sid}\\software\\microsoft\\windows\\currentversion\\explorer\\userassist\\{cebff5cd-ace2-4f4f-9178-9926f41749ea}\\count',
    '\\registry\\user\\{sid}\\software\\microsoft\\windows\\currentversion\\explorer\\sessioninfo\\1\\applicationviewmanagement',
  ],
  bam: ['\\registry\\machine\\system\\controlset001\\services\\bam\\state\\usersettings\\{sid}\\\\device\\harddiskvolume3\\windows\\system32\\cmd.exe'],
  chrome: ['\\registry\\user\\{sid}\\software\\google\\chrome\\blbeacon\\version', '\\registry\\machine\\software\\policies\\google\\update\\updatedefault'],
  office: [
    '\\registry\\user\\{sid}\\software\\microsoft\\office\\16.0\\word\\resiliency\\startupitems\\{hex}',
    '\\registry\\user\\{sid}\\software\\microsoft\\office\\16.0\\common\\roaming\\identities\\{hex32}_adal',
  ],
  services: [
    '\\registry\\machine\\system\\controlset001\\services\\tcpip\\parameters\\interfaces\\{{hex}-0000-4000-8000-000000000000}\\dhcpipaddress',
    '\\registry\\machine\\software\\microsoft\\windows nt\\currentversion\\notifications\\data\\418a073aa3bc3475',
    '\\registry\\machine\\system\\controlset001\\control\\session manager\\memory management\\prefetchparameters',
  ],
  'windows-update': ['\\registry\\machine\\software\\microsoft\\windows\\currentversion\\windowsupdate\\auto update\\results\\detect\\lastsuccesstime'],
  defender: ['\\registry\\machine\\software\\microsoft\\windows defender\\signature updates\\signaturesupdatedon'],
  powershell: ['\\registry\\user\\{sid}\\software\\microsoft\\powershell\\1\\shellids\\microsoft.powershell\\executionpolicy'],
};

export interface HostProfile {
  readonly os: Os;
  readonly hostType: HostType;
  readonly role: string;
  /** `{nn}` becomes the endpoint's number. */
  readonly name: string;
  readonly display: readonly string[];
  readonly buildVersion: string;
}

export const HOST_PROFILES: Weighted<HostProfile> = [
  ...['acct', 'eng', 'hr', 'sales', 'legal', 'it'].map((role) => [{
    os: 'windows', hostType: 'workstation', role, name: `win-${role}-{nn}`,
    display: ['Windows 10 Enterprise, 64-bit', 'Windows 11 Enterprise, 64-bit'], buildVersion: '007.002.000.18311',
  }, 9] as const),
  ...['file', 'sql', 'app'].map((role) => [{
    os: 'windows', hostType: 'server', role, name: `srv-${role}-{nn}`,
    display: ['Windows Server 2019 Datacenter, 64-bit', 'Windows Server 2022 Standard, 64-bit'], buildVersion: '007.002.000.18311',
  }, 3] as const),
  [{ os: 'windows', hostType: 'domain_controller', role: 'dc', name: 'dc-{nn}', display: ['Windows Server 2022 Datacenter, 64-bit'], buildVersion: '007.002.000.18311' }, 1],
  ...['web', 'db', 'build', 'app'].map((role) => [{
    os: 'linux', hostType: 'server', role, name: `${role}-{nn}`,
    display: ['Ubuntu 22.04.3 LTS', 'Red Hat Enterprise Linux 8.9 (Ootpa)'], buildVersion: '007.001.000.30109',
  }, 6] as const),
  ...['design', 'eng', 'exec'].map((role) => [{
    os: 'osx', hostType: 'workstation', role, name: `mac-${role}-{nn}`,
    display: ['macOS 14.2.1 (Sonoma)', 'macOS 13.6.3 (Ventura)'], buildVersion: '007.003.001.40118',
  }, 5] as const),
];

/** Fills the per-endpoint placeholders and draws fresh values for the per-variant ones. */
export function render(template: string, vars: Readonly<Record<string, string>>, random: Random): string {
  return template.replace(/\{(user|sid|host|hex|hex32|n|date)\}/g, (_, name: string) => {
    switch (name) {
      case 'hex': return random.hex(8);
      case 'hex32': return random.hex(32);
      case 'n': return String(random.between(1, 99));
      case 'date': return `2024${String(random.between(1, 12)).padStart(2, '0')}${String(random.between(1, 28)).padStart(2, '0')}`;
      default: return vars[name] ?? '';
    }
  });
}

/** True when rendering the template twice may give different text. */
export function varies(template: string): boolean {
  return /\{(hex|hex32|n|date)\}/.test(template);
}
