/**
 * Icons for simulated Windows programs, as a sensor extracts them from a PE's resources: a 32×32
 * PNG, here a tile in a colour of the program's own with a lighter mark, so that different
 * programs show different icons.
 */
import { encode } from 'fast-png';
import type { Random } from './random.js';

const SIZE = 32;

export function programIcon(random: Random): Buffer {
  const tile = [random.between(30, 190), random.between(30, 190), random.between(30, 190), 0xff];
  const mark = tile.map((channel, i) => (i === 3 ? channel : channel + Math.round((255 - channel) * 0.7)));
  const data = new Uint8Array(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const inTile = x >= 2 && x < SIZE - 2 && y >= 2 && y < SIZE - 2 && !isCorner(x, y);
      const inMark = x >= 10 && x < SIZE - 10 && y >= 10 && y < SIZE - 10;
      data.set(inMark ? mark : inTile ? tile : [0, 0, 0, 0], (y * SIZE + x) * 4);
    }
  }
  return Buffer.from(encode({ width: SIZE, height: SIZE, data, channels: 4 }));
}

/** Cut corners, for a tile with rounded-looking edges. */
function isCorner(x: number, y: number): boolean {
  const dx = Math.min(x - 2, SIZE - 3 - x);
  const dy = Math.min(y - 2, SIZE - 3 - y);
  return dx + dy < 3;
}
