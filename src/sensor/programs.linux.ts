/** Linux programs for simulated servers: systemd and its services, SSH sessions, cron, shells. */
import type { BootNode, HostType, OsCatalog, Program } from './catalog.js';

const LIB = '/usr/lib/x86_64-linux-gnu/';
const lib = (...names: string[]) => names.map((name) => LIB + name);

const LIBC = ['/usr/lib64/ld-linux-x86-64.so.2', ...lib('libc.so.6')];
const SYSTEMD = [...LIBC, ...lib('libsystemd-shared-249.so', 'libselinux.so.1', 'libmount.so.1', 'libcap.so.2')];
const SSL = lib('libssl.so.3', 'libcrypto.so.3', 'libz.so.1');
const SHELL = [...LIBC, ...lib('libtinfo.so.6')];
const PYTHON = [...LIBC, ...lib('libm.so.6', 'libexpat.so.1', 'libz.so.1'), '/usr/lib/python3.10/lib-dynload/_ssl.cpython-310-x86_64-linux-gnu.so', ...SSL];

const command = (path: string, cmdlines: string[], extra: Partial<Program> = {}): Program => ({
  path, cmdlines, runAs: 'user', modules: LIBC, act: [0, 2], ...extra,
});

const SHELL_SPAWNS = [
  ['ls', 4], ['grep', 3], ['ps', 2], ['cat', 3], ['tail', 2], ['vim', 2], ['git', 3], ['curl', 2], ['python3', 3], ['ssh', 1],
  ['sudo-apt', 1], ['sudo-systemctl', 1], ['bash-c', 1], ['tar', 1], ['deploy-helper', 1],
] as const;

const programs: Record<string, Program> = {
  systemd: {
    path: '/usr/lib/systemd/systemd', cmdlines: ['/sbin/init splash', '/usr/lib/systemd/systemd --switched-root --system --deserialize 31'], runAs: 'root',
    modules: SYSTEMD, act: [1, 3], file: 1, files: ['linux-temp'], long: true, spawns: [['apt-daily', 1], ['tmpfiles', 2], ['logrotate', 1]],
  },
  journald: { path: '/usr/lib/systemd/systemd-journald', cmdlines: ['/lib/systemd/systemd-journald'], runAs: 'root', modules: SYSTEMD, act: [2, 6], files: ['journal', 'linux-logs'], long: true },
  resolved: {
    path: '/usr/lib/systemd/systemd-resolved', cmdlines: ['/lib/systemd/systemd-resolved'], runAs: 'systemd-resolve', modules: SYSTEMD, act: [3, 10], dests: ['dns'], long: true,
  },
  sshd: {
    path: '/usr/sbin/sshd', cmdlines: ['sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups'], runAs: 'root', modules: [...LIBC, ...SSL, ...lib('libpam.so.0', 'libcrypt.so.1')],
    act: [1, 3], dests: ['inbound-ssh'], long: true, spawns: [['sshd-session', 1]],
  },
  'sshd-session': {
    path: '/usr/sbin/sshd', cmdlines: ['sshd: {user} [priv]'], runAs: 'root', modules: [...LIBC, ...SSL, ...lib('libpam.so.0')], act: [1, 2], files: ['linux-logs'],
    long: true, children: [['sshd-user', 1]], childCount: [1, 1],
  },
  'sshd-user': {
    path: '/usr/sbin/sshd', cmdlines: ['sshd: {user}@pts/{n}'], runAs: 'user', modules: [...LIBC, ...SSL], long: true, children: [['bash-login', 1]], childCount: [1, 1],
  },
  'bash-login': {
    path: '/usr/bin/bash', cmdlines: ['-bash'], runAs: 'user', modules: SHELL, act: [1, 2], files: ['linux-home'], long: true, spawns: SHELL_SPAWNS,
  },
  'bash-c': command('/usr/bin/bash', ['bash -c "./scripts/deploy.sh production"', 'bash -c "for h in web-01 web-02; do ssh $h uptime; done"'], {
    modules: SHELL, children: [['curl', 1], ['ssh', 1], ['tar', 1]], childCount: [1, 3],
  }),
  cron: { path: '/usr/sbin/cron', cmdlines: ['/usr/sbin/cron -f -P'], runAs: 'root', modules: [...LIBC, ...lib('libpam.so.0')], long: true, spawns: [['cron-sh', 1]] },
  'cron-sh': command('/usr/bin/dash', [
    '/bin/sh -c   test -x /usr/sbin/anacron || { cd / && run-parts --report /etc/cron.daily; }',
    '/bin/sh -c /opt/backup/backup.sh >> /var/log/backup.log 2>&1',
  ], { runAs: 'root', children: [['run-parts', 2], ['tar', 1]], childCount: [1, 1] }),
  'run-parts': command('/usr/bin/run-parts', ['run-parts --report /etc/cron.daily'], { runAs: 'root', children: [['logrotate', 1], ['apt-daily', 1]], childCount: [1, 2] }),
  logrotate: command('/usr/sbin/logrotate', ['/usr/sbin/logrotate /etc/logrotate.conf'], { runAs: 'root', act: [2, 6], files: ['linux-logs', 'nginx-logs'] }),
  tmpfiles: command('/usr/bin/systemd-tmpfiles', ['/usr/bin/systemd-tmpfiles --clean'], { runAs: 'root', modules: SYSTEMD, files: ['linux-temp'] }),
  'apt-daily': command('/usr/bin/apt-get', ['apt-get -qq -y update', '/usr/bin/apt-get -qq --download-only dist-upgrade'], {
    runAs: 'root', modules: [...LIBC, ...lib('libapt-pkg.so.6.0')], act: [2, 6], files: ['apt'], children: [['apt-http', 1]], childCount: [1, 2],
  }),
  'apt-http': command('/usr/lib/apt/methods/http', ['/usr/lib/apt/methods/http'], { runAs: '_apt', modules: [...LIBC, ...lib('libapt-pkg.so.6.0')], act: [2, 5], dests: ['ubuntu'], files: ['apt'] }),
  'nginx-master': {
    path: '/usr/sbin/nginx', cmdlines: ['nginx: master process /usr/sbin/nginx -g daemon on; master_process on;'], runAs: 'root', modules: [...LIBC, ...SSL, ...lib('libpcre2-8.so.0')],
    act: [0, 1], files: ['nginx-logs'], long: true,
  },
  'nginx-worker': {
    path: '/usr/sbin/nginx', cmdlines: ['nginx: worker process'], runAs: 'www-data', modules: [...LIBC, ...SSL], act: [6, 20], net: 3, file: 1,
    dests: ['inbound-web', 'inbound-app'], files: ['nginx-logs'], long: true,
  },
  postgres: {
    path: '/usr/lib/postgresql/14/bin/postgres', cmdlines: ['/usr/lib/postgresql/14/bin/postgres -D /var/lib/postgresql/14/main -c config_file=/etc/postgresql/14/main/postgresql.conf'],
    runAs: 'postgres', modules: [...LIBC, ...SSL], act: [1, 4], files: ['postgres'], long: true, spawns: [['postgres-backend', 1]],
  },
  'postgres-backend': command('/usr/lib/postgresql/14/bin/postgres', ['postgres: 14/main: app appdb 10.2.0.21({n}822) idle', 'postgres: 14/main: autovacuum worker'], {
    runAs: 'postgres', modules: [...LIBC, ...SSL], act: [2, 8], net: 1, file: 2, dests: ['inbound-db'], files: ['postgres'],
  }),
  dockerd: {
    path: '/usr/bin/dockerd', cmdlines: ['/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock'], runAs: 'root', modules: LIBC, act: [2, 6],
    dests: ['docker'], files: ['docker'], long: true,
  },
  containerd: { path: '/usr/bin/containerd', cmdlines: ['/usr/bin/containerd'], runAs: 'root', modules: LIBC, act: [1, 3], files: ['docker'], long: true, spawns: [['runc', 1]] },
  runc: command('/usr/bin/runc', ['runc --root /var/run/docker/runtime-runc/moby --log /run/containerd/io.containerd.runtime.v2.task/moby/{hex32}/log.json --log-format json create --bundle /run/containerd/io.containerd.runtime.v2.task/moby/{hex32} {hex32}'], {
    runAs: 'root', files: ['docker'],
  }),
  'node-app': {
    path: '/usr/bin/node', cmdlines: ['/usr/bin/node /srv/app/server.js'], runAs: 'app', modules: [...LIBC, ...SSL, ...lib('libstdc++.so.6')], act: [4, 12], net: 3, file: 1,
    dests: ['inbound-app', 'database', 'github'], files: ['linux-temp'], long: true,
  },
  ls: command('/usr/bin/ls', ['ls -la', 'ls -l /var/log', 'ls --color=auto'], { modules: [...LIBC, ...lib('libselinux.so.1')] }),
  grep: command('/usr/bin/grep', ['grep -r TODO src/', 'grep -i error /var/log/syslog', 'grep --color=auto -n listen /etc/nginx/sites-enabled/default'], { modules: [...LIBC, ...lib('libpcre2-8.so.0')] }),
  ps: command('/usr/bin/ps', ['ps aux', 'ps -ef --forest'], { modules: [...LIBC, ...lib('libprocps.so.8')] }),
  cat: command('/usr/bin/cat', ['cat /etc/os-release', 'cat /etc/passwd', 'cat /proc/cpuinfo']),
  tail: command('/usr/bin/tail', ['tail -n 200 /var/log/nginx/error.log', 'tail -f /var/log/syslog']),
  vim: command('/usr/bin/vim.basic', ['vim /etc/nginx/sites-available/default', 'vim app/settings.py'], { modules: [...SHELL, ...lib('libpython3.10.so.1.0')], act: [2, 4], files: ['linux-home', 'linux-temp'] }),
  git: command('/usr/bin/git', ['git pull --rebase', 'git fetch origin', 'git status', 'git log --oneline -20'], {
    modules: [...LIBC, ...lib('libpcre2-8.so.0', 'libz.so.1')], act: [1, 3], files: ['linux-home'], children: [['git-remote-https', 1]], childCount: [0, 1],
  }),
  'git-remote-https': command('/usr/lib/git-core/git-remote-https', ['/usr/lib/git-core/git-remote-https origin https://github.com/example/app.git'], {
    modules: [...LIBC, ...SSL, ...lib('libcurl-gnutls.so.4')], act: [1, 3], dests: ['github'],
  }),
  curl: command('/usr/bin/curl', ['curl -fsSL https://get.docker.com -o get-docker.sh', 'curl -s http://169.254.169.254/latest/meta-data/iam/security-credentials/', 'curl -I https://example.com'], {
    modules: [...LIBC, ...SSL, ...lib('libcurl.so.4', 'libnghttp2.so.14')], act: [1, 2], dests: ['web', 'metadata', 'docker'],
  }),
  python3: command('/usr/bin/python3.10', ['python3 manage.py migrate', 'python3 -m pip install --user requests', 'python3 -c "import pty;pty.spawn(\'/bin/bash\')"', '/usr/bin/python3 /usr/bin/unattended-upgrade'], {
    modules: PYTHON, act: [2, 6], net: 1, file: 2, dests: ['pypi', 'database'], files: ['linux-home', 'linux-temp'],
  }),
  ssh: command('/usr/bin/ssh', ['ssh deploy@db-01', 'ssh -i ~/.ssh/id_ed25519 build-02 uptime'], { modules: [...LIBC, ...SSL], act: [1, 1], dests: ['ssh'] }),
  tar: command('/usr/bin/tar', ['tar czf /tmp/backup-{date}.tgz /srv/app', 'tar xzf /home/{user}/app/dist/server-{n}.tar.gz'], { runAs: 'root', act: [1, 3], files: ['linux-home', 'linux-temp'] }),
  'sudo-apt': command('/usr/bin/sudo', ['sudo apt-get update'], { runAs: 'root', modules: [...LIBC, ...lib('libpam.so.0')], files: ['linux-logs'], children: [['apt-daily', 1]], childCount: [1, 1] }),
  'sudo-systemctl': command('/usr/bin/sudo', ['sudo systemctl restart nginx', 'sudo systemctl status postgresql'], {
    runAs: 'root', modules: [...LIBC, ...lib('libpam.so.0')], files: ['linux-logs'], children: [['systemctl', 1]], childCount: [1, 1],
  }),
  systemctl: command('/usr/bin/systemctl', ['systemctl restart nginx', 'systemctl status postgresql'], { runAs: 'root', modules: SYSTEMD }),
  'deploy-helper': command('/home/{user}/bin/deploy-helper', ['/home/{user}/bin/deploy-helper --env production'], {
    unique: true, act: [2, 5], net: 2, file: 1, dests: ['github', 'suspicious'], files: ['linux-drop', 'linux-temp'],
  }),
};

const node = (program: string, ...children: BootNode[]): BootNode => ({ program, children });

const ROLE_SERVICES: Record<string, BootNode[]> = {
  web: [node('nginx-master', node('nginx-worker'), node('nginx-worker'))],
  db: [node('postgres')],
  build: [node('containerd'), node('dockerd')],
  app: [node('node-app')],
};

function bootTree(_hostType: HostType, role: string): BootNode {
  return node('systemd', node('journald'), node('resolved'), node('cron'), node('sshd'), ...(ROLE_SERVICES[role] ?? []));
}

export const LINUX: OsCatalog = { programs, bootTree };
