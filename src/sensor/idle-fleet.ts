/**
 * Idle sensors for `vigil simulate --idle-sensors`: thousands of endpoints from one process that
 * register and check in but send no events, the load of the sensors a server carries between
 * uploads. Their first check-ins are spread evenly over one interval, as a fleet started at
 * different times would be.
 */
import type { Agent } from 'node:http';
import type { BinaryCatalog } from './binaries.js';
import { Checkins } from './checkins.js';
import { SensorClient, SensorRequestError } from './client.js';
import { Endpoint } from './endpoint.js';

export interface IdleFleetOptions {
  count: number;
  /** Index of the first idle endpoint in the fleet (after the streaming ones), which names its host. */
  firstIndex: number;
  seed: string;
  startMs: number;
  binaries: BinaryCatalog;
  /** A new connection setting for each sensor: each keeps its own connection, as a real one does. */
  connection: () => { server: string; agent: Agent; checkinAgent?: Agent | undefined; gzip?: boolean | undefined };
  installCode: string;
  intervalMs: number;
  onRefused: (endpoint: Endpoint) => (error: Error) => void;
}

/** Registration is a request each: a large fleet registers this many at a time. */
const REGISTRATIONS_IN_PARALLEL = 16;
const REGISTRATION_ATTEMPTS = 3;

/** Registers the fleet and starts its check-in loops. */
export async function startIdleFleet(options: IdleFleetOptions): Promise<Checkins[]> {
  const checkins: Checkins[] = [];
  for (let first = 0; first < options.count; first += REGISTRATIONS_IN_PARALLEL) {
    const indexes = Array.from({ length: Math.min(REGISTRATIONS_IN_PARALLEL, options.count - first) }, (_, k) => first + k);
    await Promise.all(indexes.map(async (i) => {
      const endpoint = new Endpoint({ seed: options.seed, index: options.firstIndex + i, startMs: options.startMs, binaries: options.binaries });
      const client = new SensorClient(options.connection());
      await register(client, options.installCode, endpoint);
      checkins.push(new Checkins(client, endpoint, options.intervalMs, options.onRefused(endpoint), (i / options.count) * options.intervalMs));
    }));
  }
  return checkins;
}

/**
 * Registers an idle sensor, again after a registration that got no answer: at worst the server
 * keeps a stray sensor that never checks in, which an idle fleet (no events) can afford; thousands
 * of registrations in a row on a loaded server meet the odd connection closed under them.
 */
async function register(client: SensorClient, installCode: string, endpoint: Endpoint): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.register(installCode, endpoint.facts);
      return;
    } catch (error) {
      if (!(error instanceof SensorRequestError && error.status === 0) || attempt === REGISTRATION_ATTEMPTS) throw error;
    }
  }
}
