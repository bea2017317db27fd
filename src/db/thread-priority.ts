/**
 * A worker thread's own CPU priority. Linux keeps a nice value per thread, and setpriority() on
 * the calling thread's id (`os.setPriority(0, …)` from that thread) changes that thread alone; on
 * other systems the same call renices the whole process, request thread included, so there it is
 * not made.
 */
import { readFileSync } from 'node:fs';
import { getPriority, platform, setPriority } from 'node:os';

/** Makes the calling thread `increment` nicer than it is (at most 19), on Linux; answers whether it did. */
export function niceThisThread(increment: number): boolean {
  if (increment === 0 || platform() !== 'linux') return false;
  setPriority(0, Math.min(19, getPriority(0) + increment));
  return true;
}

/** The calling thread's nice value as the kernel reports it (/proc/thread-self/stat, field 19). */
export function threadNice(): number {
  const stat = readFileSync('/proc/thread-self/stat', 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[19 - 3]);
}
