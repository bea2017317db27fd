/**
 * One simulated endpoint: a host with an OS, a user and a process tree that grows, works and
 * shrinks, reported as sensor events. Everything derives from (seed, index, startMs): the same
 * three give the same host, the same events in the same order and the same binaries.
 *
 * Generation is the hot path of `vigil simulate`: programs come resolved from the Host, and an
 * event costs a few random draws and one object literal.
 */
import type { SensorEvent } from '../ingest/event.schemas.js';
import type { RegisterBody } from '../modules/sensors/sensor-protocol.schemas.js';
import { BanList } from './ban-list.js';
import { BinaryCatalog, type Binary } from './binaries.js';
import type { BootNode, CrossprocAction, Os, Range } from './catalog.js';
import { FileSystem } from './file-system.js';
import { Host, type Resolved } from './host.js';
import { Random, weighted } from './random.js';
import { UploadThrottle } from './upload-throttle.js';

export interface EndpointOptions {
  seed: string;
  /** The endpoint's place in its fleet, from 0: it names the host and picks its random streams. */
  index: number;
  /** Wall-clock start, epoch ms; the sensor clock is this plus the host's skew. */
  startMs: number;
  /** Start no more than this many processes, the boot tree included; unlimited when absent. */
  processes?: number | undefined;
  /** Shared by a fleet so that each binary is built once. */
  binaries?: BinaryCatalog | undefined;
}

/** A process running on the endpoint, as live response lists it. */
export interface RunningProcess {
  pid: number;
  /** Sensor clock, epoch ms. */
  start: number;
  path: string;
  cmdline: string;
  username: string;
  uid: string | undefined;
  parent: { pid: number; start: number } | undefined;
}

/** What a kill request came to. */
export type KillOutcome = 'killed' | 'no_such_process' | 'denied';

interface Process {
  readonly pid: number;
  readonly start: number;
  readonly resolved: Resolved;
  readonly cmdline: string;
  readonly parent: Process | undefined;
  readonly boot: boolean;
  alive: boolean;
  /** Index in `running` while a long-lived process runs, else -1. */
  slot: number;
}

export class Endpoint {
  readonly host: Host;
  readonly os: Os;
  readonly hostname: string;
  readonly bootMs: number;
  readonly facts: Omit<RegisterBody, 'install_code'>;
  /** While true the host is cut off: no network connections are reported. */
  isolated = false;
  /** Programs whose image is banned are blocked: their parent reports a processblock instead. */
  readonly bans = new BanList();
  /** The upload limits of its site, from the server's throttle instructions. */
  readonly throttle = new UploadThrottle();
  /** The binaries its processes used and the files put there, for live response. */
  readonly files: FileSystem;
  processesStarted = 0;

  private readonly random: Random;
  private readonly announced = new Set<Resolved>();
  private readonly announcedBinaries = new Set<string>();
  private newBinaries: Binary[] = [];
  private readonly running: Process[] = [];
  private readonly runningPids = new Set<number>();
  private spawners = 0;
  private remaining: number;
  private pidCounter: number;
  private now: number;
  private sensorStart: number;
  private booted = false;
  private done = false;
  private carry: SensorEvent[] = [];

  constructor(options: EndpointOptions) {
    this.host = new Host(options.seed, options.index, options.binaries ?? new BinaryCatalog(options.seed));
    this.random = new Random(`${options.seed}/events/${options.index}`);
    ({ os: this.os, hostname: this.hostname, facts: this.facts } = this.host);
    this.files = new FileSystem(this.os);
    this.sensorStart = this.sensorTime(options.startMs);
    this.bootMs = this.sensorStart - this.host.uptimeMs;
    this.now = this.bootMs;
    this.remaining = options.processes ?? Infinity;
    this.pidCounter = this.os === 'windows' ? 64 : 180;
  }

  /** The sensor's clock at a wall-clock time. */
  sensorTime(wallMs: number): number {
    return wallMs + this.host.skewMs;
  }

  /** Keeps event times from falling behind the sensor clock (they may run ahead at high rates). */
  syncClock(wallMs: number): void {
    const sensorNow = this.sensorTime(wallMs);
    if (this.booted) this.now = Math.max(this.now, sensorNow);
    else this.sensorStart = Math.max(this.sensorStart, sensorNow);
  }

  /** True once the process budget is spent (or nothing can start a process) and every event was taken. */
  get exhausted(): boolean {
    return this.done && this.carry.length === 0;
  }

  /** The next events, at most `max`, in order; fewer only when the endpoint is exhausted. */
  take(max: number): SensorEvent[] {
    const out = this.carry;
    this.carry = [];
    while (out.length < max && !this.done) this.step(out);
    if (out.length > max) {
      this.carry = out.slice(max);
      out.length = max;
    }
    return out;
  }

  /** The processes running now: long-lived ones (short-lived processes start and end within one step). */
  processes(): RunningProcess[] {
    return this.running.map((proc) => ({
      pid: proc.pid, start: proc.start, path: proc.resolved.image.path, cmdline: proc.cmdline, username: proc.resolved.username,
      uid: proc.resolved.uid, parent: proc.parent && { pid: proc.parent.pid, start: proc.parent.start },
    }));
  }

  /**
   * Ends a running process, as a live-response kill does: its process_end comes with the next
   * events taken. The system itself (the root of the process tree) refuses.
   */
  kill(pid: number): KillOutcome {
    const proc = this.running.find((candidate) => candidate.pid === pid);
    if (!proc) return 'no_such_process';
    if (!proc.parent) return 'denied';
    this.end(this.carry, proc);
    return 'killed';
  }

  /** Binaries that taken events reference and that were not handed out before. */
  takeBinaries(): Binary[] {
    const binaries = this.newBinaries;
    this.newBinaries = [];
    return binaries;
  }

  private step(out: SensorEvent[]): void {
    if (!this.booted) {
      const root = this.host.catalog.bootTree(this.host.profile.hostType, this.host.profile.role);
      this.run(out, root.program, undefined, root.children ?? []);
      this.booted = true;
      this.now = Math.max(this.now, this.sensorStart);
    } else if (this.remaining <= 0 || this.spawners === 0) {
      this.done = true;
    } else {
      this.activity(out);
    }
  }

  /** Something happens on a running host: a process starts, a running one works, or one exits. */
  private activity(out: SensorEvent[]): void {
    this.now += this.random.int(3);
    const roll = this.random.next();
    if (roll < 0.55 && this.spawn(out)) return;
    if (roll > 0.97) {
      const victim = this.random.pick(this.running);
      if (!victim.boot) return this.end(out, victim);
    }
    const worker = this.random.pick(this.running);
    this.act(out, worker, this.count(worker.resolved.program.act));
  }

  /**
   * A running process starts a child. Parents are drawn by the sum of their spawn weights, so a
   * desktop shell with many programs to start is busier than a service with one.
   */
  private spawn(out: SensorEvent[]): boolean {
    let total = 0;
    for (const proc of this.running) total += proc.resolved.spawnWeight;
    let roll = this.random.next() * total;
    const parent = this.running.find((proc) => (roll -= proc.resolved.spawnWeight) < 0);
    if (!parent) return false;
    const key = weighted(this.random, parent.resolved.program.spawns!);
    const sibling = this.running.find((proc) => proc.parent === parent && proc.resolved.key === key);
    if (sibling) this.act(out, sibling, this.count(sibling.resolved.program.act));
    else this.run(out, key, parent);
    return true;
  }

  /**
   * A process's start-up: it starts, works, starts its children (and, in the boot tree, the
   * processes the host booted with), and exits unless it is long-lived.
   */
  private run(out: SensorEvent[], key: string, parent: Process | undefined, boot?: readonly BootNode[]): void {
    if (this.remaining <= 0) return;
    const resolved = this.host.program(key);
    // The root of the boot tree is the system itself, which sensors never block.
    if (parent && this.bans.has(resolved.image.md5)) return this.block(out, resolved, parent);
    const proc = this.start(out, key, parent, boot !== undefined);
    const program = proc.resolved.program;
    if (program.long) {
      proc.slot = this.running.push(proc) - 1;
      if (program.spawns) this.spawners++;
    }
    const work = this.count(program.act);
    const children = program.children ? this.count(program.childCount ?? [1, 1]) : 0;
    this.act(out, proc, work >> 1);
    for (let i = 0; i < children; i++) this.run(out, weighted(this.random, program.children!), proc);
    for (const node of boot ?? []) this.run(out, node.program, proc, node.children ?? []);
    this.act(out, proc, work - (work >> 1));
    if (!program.long) this.end(out, proc);
  }

  private start(out: SensorEvent[], key: string, parent: Process | undefined, boot: boolean): Process {
    this.remaining--;
    this.processesStarted++;
    const resolved = this.host.program(key);
    if (!this.announced.has(resolved)) this.announce(resolved);
    const { image } = resolved;
    const proc: Process = {
      pid: this.nextPid(parent === undefined), start: this.tick(), resolved, cmdline: this.random.pick(resolved.cmdlines),
      parent, boot, alive: true, slot: -1,
    };
    this.runningPids.add(proc.pid);
    if (parent?.alive) {
      out.push({
        type: 'childproc', ts: proc.start, pid: parent.pid, process_start: parent.start, action: 'start', child_pid: proc.pid,
        child_start: proc.start, path: image.path, md5: image.md5, sha256: image.sha256, cmdline: proc.cmdline, username: resolved.username,
      });
    }
    out.push({
      type: 'process_start', ts: proc.start, pid: proc.pid, process_start: proc.start, path: image.path, cmdline: proc.cmdline,
      username: resolved.username, uid: resolved.uid, md5: image.md5, sha256: image.sha256, parent_pid: parent?.pid, parent_start: parent?.start,
      parent_path: parent?.resolved.image.path, parent_md5: parent?.resolved.image.md5,
    });
    for (const module of resolved.modules) {
      out.push({ type: 'modload', ts: this.tick(), pid: proc.pid, process_start: proc.start, path: module.path, md5: module.md5, sha256: module.sha256 });
    }
    return proc;
  }

  /**
   * A banned program's start, stopped: the would-be parent reports it. The attempt spends a
   * process from the budget, so a host whose every program is banned still comes to an end.
   * block_type and the other codes are left out: their values were never recorded.
   */
  private block(out: SensorEvent[], resolved: Resolved, parent: Process): void {
    this.remaining--;
    out.push({
      type: 'processblock', ts: this.tick(), pid: parent.pid, process_start: parent.start, blocked_md5: resolved.image.md5,
      blocked_path: resolved.image.path, blocked_cmdline: this.random.pick(resolved.cmdlines), blocked_uid: resolved.uid,
      blocked_username: resolved.username,
    });
  }

  private end(out: SensorEvent[], proc: Process): void {
    const ts = this.tick();
    out.push({ type: 'process_end', ts, pid: proc.pid, process_start: proc.start });
    const { parent, resolved: { image } } = proc;
    if (parent?.alive) {
      out.push({
        type: 'childproc', ts, pid: parent.pid, process_start: parent.start, action: 'end', child_pid: proc.pid, child_start: proc.start,
        path: image.path, md5: image.md5, sha256: image.sha256, cmdline: proc.cmdline, username: proc.resolved.username,
      });
    }
    proc.alive = false;
    this.runningPids.delete(proc.pid);
    if (proc.slot >= 0) {
      const last = this.running.pop()!;
      if (last !== proc) {
        this.running[proc.slot] = last;
        last.slot = proc.slot;
      }
      proc.slot = -1;
      if (proc.resolved.program.spawns) this.spawners--;
    }
  }

  /** `n` events of the kinds the process's program does: connections, file and registry writes, process access. */
  private act(out: SensorEvent[], proc: Process, n: number): void {
    const { kinds } = proc.resolved;
    if (kinds.length === 0) return;
    for (let i = 0; i < n; i++) {
      const kind = weighted(this.random, kinds);
      if (kind === 'net') this.netconn(out, proc);
      else if (kind === 'file') this.filemod(out, proc);
      else if (kind === 'reg') this.regmod(out, proc);
      else this.crossproc(out, proc);
    }
  }

  private netconn(out: SensorEvent[], proc: Process): void {
    if (this.isolated) return;
    const target = this.random.pick(proc.resolved.targets);
    const ephemeral = this.os === 'windows' ? this.random.between(49152, 65535) : this.random.between(32768, 60999);
    out.push({
      type: 'netconn', ts: this.tick(), pid: proc.pid, process_start: proc.start, direction: target.inbound ? 'inbound' : 'outbound',
      proto: target.udp ? 17 : 6, remote_ip: target.ip, remote_port: target.inbound ? ephemeral : target.port,
      local_ip: target.v6 ? this.host.ip6 : this.host.ip4, local_port: target.inbound ? target.port : ephemeral, domain: target.domain,
      ja3: target.ja3s ? proc.resolved.ja3 : undefined, ja3s: target.ja3s,
    });
  }

  /** A file written: sometimes created first, always a first and a last write, sometimes deleted after. */
  private filemod(out: SensorEvent[], proc: Process): void {
    const { pid, start } = proc;
    const file = this.random.pick(proc.resolved.files);
    const { path, fileType } = file;
    if (this.random.chance(0.4)) out.push({ type: 'filemod', ts: this.tick(), pid, process_start: start, action: 'create', path, file_type: fileType });
    out.push({ type: 'filemod', ts: this.tick(), pid, process_start: start, action: 'first_write', path, file_type: fileType });
    out.push({ type: 'filemod', ts: this.tick(), pid, process_start: start, action: 'last_write', path, file_type: fileType, md5: file.md5, sha256: file.sha256 });
    if (this.random.chance(0.1)) out.push({ type: 'filemod', ts: this.tick(), pid, process_start: start, action: 'delete', path, file_type: fileType });
  }

  private regmod(out: SensorEvent[], proc: Process): void {
    const roll = this.random.int(20);
    out.push({
      type: 'regmod', ts: this.tick(), pid: proc.pid, process_start: proc.start, path: this.random.pick(proc.resolved.keys),
      action: roll < 14 ? 'first_write' : roll < 17 ? 'create_key' : roll < 19 ? 'delete_value' : 'delete_key',
    });
  }

  private crossproc(out: SensorEvent[], proc: Process): void {
    if (this.running.length === 0) return;
    const target = this.random.pick(this.running);
    if (target === proc) return;
    const [action, access] = proc.resolved.program.crossproc as readonly [CrossprocAction, number];
    const { image } = target.resolved;
    out.push({
      type: 'crossproc', ts: this.tick(), pid: proc.pid, process_start: proc.start, action, target_pid: target.pid, target_start: target.start,
      target_path: image.path, target_md5: image.md5, target_sha256: image.sha256, access,
    });
  }

  /**
   * Sensor clock for the next event. With the pauses between activities, a simulated second holds
   * 7,000–11,000 events: a sensor streaming slower stays on its wall clock (syncClock fills the
   * gaps), a faster one runs ahead of it.
   */
  private tick(): number {
    if ((this.random.uint32() & 31) === 0) this.now++;
    return this.now;
  }

  private count(range: Range | undefined): number {
    return range ? this.random.between(range[0], range[1]) : 0;
  }

  private nextPid(root: boolean): number {
    if (root) return this.os === 'windows' ? 4 : 1;
    const [step, max] = this.os === 'windows' ? [4, 65532] : [1, 4_194_303];
    do {
      this.pidCounter += step * this.random.between(1, 6);
      if (this.pidCounter > max) this.pidCounter = 256;
    } while (this.runningPids.has(this.pidCounter));
    return this.pidCounter;
  }

  private announce(resolved: Resolved): void {
    this.announced.add(resolved);
    for (const binary of [resolved.image, ...resolved.modules]) {
      if (this.announcedBinaries.has(binary.md5)) continue;
      this.announcedBinaries.add(binary.md5);
      this.newBinaries.push(binary);
      this.files.write(binary.path, binary.content, this.bootMs);
    }
  }
}
