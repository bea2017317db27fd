/**
 * The icon served for a binary whose sensor sent none: a plain application window, 32×32 PNG.
 * Carbon Black's API documentation says the icon endpoint falls back to a default icon; answering
 * one (rather than 404) lets a console show every binary the same way.
 */
import { encode } from 'fast-png';

const SIZE = 32;
const FRAME = [0x50, 0x57, 0x60, 0xff];
const TITLE_BAR = [0x2f, 0x6f, 0xc0, 0xff];
const BODY = [0xf4, 0xf6, 0xf8, 0xff];
const CLEAR = [0, 0, 0, 0];

function pixel(x: number, y: number): number[] {
  const [left, top, right, bottom] = [2, 4, SIZE - 3, SIZE - 5];
  if (x < left || x > right || y < top || y > bottom) return CLEAR;
  if (x === left || x === right || y === top || y === bottom) return FRAME;
  return y <= top + 5 ? TITLE_BAR : BODY;
}

function draw(): Buffer {
  const data = new Uint8Array(SIZE * SIZE * 4);
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) data.set(pixel(x, y), (y * SIZE + x) * 4);
  }
  return Buffer.from(encode({ width: SIZE, height: SIZE, data, channels: 4 }));
}

export const DEFAULT_ICON_PNG: Buffer = draw();
