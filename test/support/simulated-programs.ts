/** Facts about a simulated endpoint's programs that tests choose their bans by. */
import { Endpoint } from '../../src/sensor/endpoint.js';

/** The md5 of the program that endpoint 0 of `seed` starts most often as a child (not the system root). */
export function mostStartedChildMd5(seed: string): string {
  const counts = new Map<string, number>();
  for (const event of new Endpoint({ seed, index: 0, startMs: Date.now(), processes: 300 }).take(20_000)) {
    if (event.type === 'process_start' && event.parent_pid !== undefined) counts.set(event.md5!, (counts.get(event.md5!) ?? 0) + 1);
  }
  return [...counts].sort((x, y) => y[1] - x[1])[0]![0];
}
