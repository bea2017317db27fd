/**
 * The hashes a simulated sensor blocks, kept from the server's `ban_list` instructions
 * (docs/sensor-protocol.md): a full list replaces what it holds, a change list adds and removes.
 * Applying the same instruction twice leaves the same list.
 */
import type { BanListPayload } from '../modules/bans/bans.schemas.js';

export class BanList {
  /** The ban-list version last applied; 0 while the sensor holds none. */
  version = 0;
  private readonly md5s = new Set<string>();

  apply(payload: BanListPayload): void {
    if (payload.full) this.md5s.clear();
    for (const md5 of payload.removed) this.md5s.delete(md5.toLowerCase());
    for (const { md5 } of payload.added) this.md5s.add(md5.toLowerCase());
    this.version = payload.version;
  }

  has(md5: string): boolean {
    return this.md5s.has(md5);
  }
}
