/** macOS programs for simulated workstations: launchd and the apps and XPC services it starts. */
import type { BootNode, OsCatalog, Program } from './catalog.js';

const CORE = ['/usr/lib/dyld', '/usr/lib/libSystem.B.dylib', '/usr/lib/libobjc.A.dylib', '/System/Library/Frameworks/CoreFoundation.framework/Versions/A/CoreFoundation'];
const COCOA = [
  '/System/Library/Frameworks/Foundation.framework/Versions/C/Foundation',
  '/System/Library/Frameworks/AppKit.framework/Versions/C/AppKit',
  '/System/Library/Frameworks/Security.framework/Versions/A/Security',
];
const NETWORK = ['/System/Library/Frameworks/Network.framework/Versions/A/Network', '/System/Library/Frameworks/CFNetwork.framework/Versions/A/CFNetwork'];
const WEBKIT = ['/System/Library/Frameworks/WebKit.framework/Versions/A/WebKit', '/System/Library/Frameworks/JavaScriptCore.framework/Versions/A/JavaScriptCore'];
const ELECTRON = (app: string) => [`/Applications/${app}.app/Contents/Frameworks/Electron Framework.framework/Versions/A/Electron Framework`];

const CHROME_APP = '/Applications/Google Chrome.app/Contents';
const CHROME_HELPER = `${CHROME_APP}/Frameworks/Google Chrome Framework.framework/Versions/120.0.6099.129/Helpers/Google Chrome Helper (Renderer).app/Contents/MacOS/Google Chrome Helper (Renderer)`;

const command = (path: string, cmdlines: string[], extra: Partial<Program> = {}): Program => ({
  path, cmdlines, runAs: 'user', modules: CORE, act: [0, 2], ...extra,
});

const programs: Record<string, Program> = {
  launchd: {
    path: '/sbin/launchd', cmdlines: ['/sbin/launchd'], runAs: 'root', modules: CORE, long: true,
    spawns: [
      ['safari', 3], ['chrome', 4], ['slack', 2], ['figma', 2], ['terminal', 3], ['mdworker', 5], ['webcontent', 4], ['softwareupdated', 1],
    ],
  },
  windowserver: {
    path: '/System/Library/PrivateFrameworks/SkyLight.framework/Versions/A/Resources/WindowServer', cmdlines: ['/System/Library/PrivateFrameworks/SkyLight.framework/Resources/WindowServer -daemon'],
    runAs: '_windowserver', modules: [...CORE, ...COCOA], long: true,
  },
  loginwindow: {
    path: '/System/Library/CoreServices/loginwindow.app/Contents/MacOS/loginwindow', cmdlines: ['/System/Library/CoreServices/loginwindow.app/Contents/MacOS/loginwindow console'],
    runAs: 'user', modules: [...CORE, ...COCOA], long: true,
  },
  finder: {
    path: '/System/Library/CoreServices/Finder.app/Contents/MacOS/Finder', cmdlines: ['/System/Library/CoreServices/Finder.app/Contents/MacOS/Finder'], runAs: 'user',
    modules: [...CORE, ...COCOA], act: [1, 4], files: ['mac-downloads'], long: true,
  },
  dock: { path: '/System/Library/CoreServices/Dock.app/Contents/MacOS/Dock', cmdlines: ['/System/Library/CoreServices/Dock.app/Contents/MacOS/Dock'], runAs: 'user', modules: [...CORE, ...COCOA], long: true },
  safari: {
    path: '/Applications/Safari.app/Contents/MacOS/Safari', cmdlines: ['/Applications/Safari.app/Contents/MacOS/Safari'], runAs: 'user',
    modules: [...CORE, ...COCOA, ...WEBKIT, '/System/Library/PrivateFrameworks/Safari.framework/Versions/A/Safari'], act: [3, 10], net: 2, file: 2,
    dests: ['apple', 'web', 'google'], files: ['safari-cache', 'mac-downloads'], long: true,
  },
  webcontent: command('/System/Library/Frameworks/WebKit.framework/Versions/A/XPCServices/com.apple.WebKit.WebContent.xpc/Contents/MacOS/com.apple.WebKit.WebContent', [
    '/System/Library/Frameworks/WebKit.framework/Versions/A/XPCServices/com.apple.WebKit.WebContent.xpc/Contents/MacOS/com.apple.WebKit.WebContent',
  ], { modules: [...CORE, ...WEBKIT], act: [0, 2], files: ['safari-cache'] }),
  chrome: {
    path: `${CHROME_APP}/MacOS/Google Chrome`, cmdlines: ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'], runAs: 'user',
    modules: [...CORE, ...COCOA, ...NETWORK, `${CHROME_APP}/Frameworks/Google Chrome Framework.framework/Versions/120.0.6099.129/Google Chrome Framework`],
    act: [4, 12], net: 2, file: 3, dests: ['google', 'web'], files: ['mac-chrome', 'mac-downloads'], long: true,
    children: [['chrome-helper', 1]], childCount: [2, 4], spawns: [['chrome-helper', 1]],
  },
  'chrome-helper': command(CHROME_HELPER, [
    `${CHROME_HELPER} --type=renderer --lang=en-US --num-raster-threads=4 --enable-zero-copy --renderer-client-id={n} --launch-time-ticks=1039183022 --shared-files --field-trial-handle=1718379636,r,{n}7093822,1461851264,262144 --seatbelt-client=113`,
  ], { modules: [...CORE, `${CHROME_APP}/Frameworks/Google Chrome Framework.framework/Versions/120.0.6099.129/Google Chrome Framework`], files: ['mac-chrome'] }),
  slack: {
    path: '/Applications/Slack.app/Contents/MacOS/Slack', cmdlines: ['/Applications/Slack.app/Contents/MacOS/Slack'], runAs: 'user',
    modules: [...CORE, ...COCOA, ...ELECTRON('Slack')], act: [3, 8], net: 3, file: 1, dests: ['slack'], files: ['mac-slack'], long: true,
  },
  figma: {
    path: '/Applications/Figma.app/Contents/MacOS/Figma', cmdlines: ['/Applications/Figma.app/Contents/MacOS/Figma'], runAs: 'user',
    modules: [...CORE, ...COCOA, ...ELECTRON('Figma')], act: [3, 8], net: 2, file: 2, dests: ['figma'], files: ['mac-design'], long: true,
  },
  terminal: {
    path: '/System/Applications/Utilities/Terminal.app/Contents/MacOS/Terminal', cmdlines: ['/System/Applications/Utilities/Terminal.app/Contents/MacOS/Terminal'],
    runAs: 'user', modules: [...CORE, ...COCOA], long: true, children: [['login', 1]], childCount: [1, 1],
  },
  login: { path: '/usr/bin/login', cmdlines: ['login -pf {user}'], runAs: 'root', modules: CORE, long: true, children: [['zsh', 1]], childCount: [1, 1] },
  zsh: {
    path: '/bin/zsh', cmdlines: ['-zsh'], runAs: 'user', modules: [...CORE, '/usr/lib/libncurses.5.4.dylib'], act: [1, 2], files: ['mac-home'], long: true,
    spawns: [['brew', 2], ['git', 3], ['curl', 2], ['python3', 2], ['ls', 4], ['ssh', 1], ['vim', 2], ['imgconv', 1]],
  },
  brew: command('/bin/bash', ['/bin/bash /opt/homebrew/Library/Homebrew/brew.sh update', '/bin/bash /opt/homebrew/Library/Homebrew/brew.sh upgrade --quiet'], {
    act: [1, 3], files: ['mac-home'], children: [['curl', 2], ['git', 1]], childCount: [1, 3],
  }),
  git: command('/Library/Developer/CommandLineTools/usr/bin/git', ['git pull', 'git push origin main', 'git status'], { act: [1, 3], dests: ['github'], files: ['mac-home'] }),
  curl: command('/usr/bin/curl', ['curl -fsSL https://raw.githubusercontent.com/Homebrew/install/HEAD/install.sh', 'curl -s https://example.com/'], {
    modules: [...CORE, '/usr/lib/libcurl.4.dylib'], act: [1, 2], dests: ['github', 'web'],
  }),
  python3: command('/Library/Developer/CommandLineTools/usr/bin/python3', ['python3 -m http.server 8000', 'python3 scripts/export_assets.py'], {
    act: [2, 5], net: 1, file: 2, dests: ['pypi'], files: ['mac-home', 'mac-design'],
  }),
  ls: command('/bin/ls', ['ls -la', 'ls ~/Downloads']),
  ssh: command('/usr/bin/ssh', ['ssh build-02', 'ssh -A db-01'], { act: [1, 1], dests: ['ssh'] }),
  vim: command('/usr/bin/vim', ['vim ~/.zshrc', 'vim README.md'], { act: [1, 3], files: ['mac-home'] }),
  imgconv: command('/Users/{user}/Downloads/tools/imgconv', ['/Users/{user}/Downloads/tools/imgconv --in assets --out dist'], { unique: true, act: [1, 3], files: ['mac-design'] }),
  mdworker: command('/System/Library/Frameworks/CoreServices.framework/Versions/A/Frameworks/Metadata.framework/Versions/A/Support/mdworker_shared', [
    '/System/Library/Frameworks/CoreServices.framework/Frameworks/Metadata.framework/Versions/A/Support/mdworker_shared -s mdworker -c MDSImporterWorker -m com.apple.mdworker.shared',
  ], { runAs: '_spotlight', act: [0, 2], files: ['spotlight'] }),
  softwareupdated: command('/System/Library/PrivateFrameworks/SoftwareUpdate.framework/Versions/A/Resources/softwareupdated', [
    '/System/Library/PrivateFrameworks/SoftwareUpdate.framework/Resources/softwareupdated',
  ], { runAs: '_softwareupdate', modules: [...CORE, ...NETWORK], act: [2, 4], dests: ['apple'] }),
};

const node = (program: string, ...children: BootNode[]): BootNode => ({ program, children });

function bootTree(): BootNode {
  return node('launchd', node('windowserver'), node('loginwindow'), node('finder'), node('dock'), node('slack'));
}

export const MACOS: OsCatalog = { programs, bootTree };
