/** What the benchmarks read from /proc about the processes they start: CPU time and resident memory. */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) a process (or, with `thread`, one of its threads) has used so far. */
export function cpuSeconds(pid: number, thread?: number): number {
  const stat = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of each of a process's threads so far. */
export function threadCpu(pid: number): Map<number, number> {
  return new Map(readdirSync(`/proc/${pid}/task`).map((thread) => [Number(thread), cpuSeconds(pid, Number(thread))]));
}

export function rssBytes(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
}

/** The machine's 1-minute load average: the benchmarks share two cores with other work. */
export function loadAverage(): number {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/**
 * Connections the kernel has turned away since boot because a listen queue was full (TcpExtListenOverflows),
 * machine-wide: each one's client tries again only after a second or more.
 */
export function listenOverflows(): number {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((line) => line.startsWith('TcpExt:'));
  const names = lines[0]!.split(' ');
  return Number(lines[1]!.split(' ')[names.indexOf('ListenOverflows')]);
}
