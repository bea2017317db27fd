/**
 * A small seeded PRNG (sfc32, seeded through cyrb128) so that the same seed always yields the same
 * simulated fleet. Not for anything secret: it is fast and reproducible, nothing more.
 */

/** Four 32-bit words mixed from a string (cyrb128): a seed state with no weak all-zero case. */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** `seed` may be any text; `new Random('42/endpoint/3')` names an independent stream. */
  constructor(readonly seed: string) {
    [this.a, this.b, this.c, this.d] = cyrb128(seed);
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** An independent stream derived from this one's seed and a label (not from its position). */
  fork(label: string): Random {
    return new Random(`${this.seed}/${label}`);
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Uniform integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  /** Lowercase hex of `length` digits. */
  hex(length: number): string {
    let text = '';
    while (text.length < length) text += this.uint32().toString(16).padStart(8, '0');
    return text.slice(0, length);
  }

  fill(buffer: Buffer): Buffer {
    let i = 0;
    for (; i + 4 <= buffer.length; i += 4) buffer.writeUInt32LE(this.uint32(), i);
    for (; i < buffer.length; i++) buffer[i] = this.uint32() & 0xff;
    return buffer;
  }
}

/** Picks by weight from `[item, weight]` pairs; weights need not sum to anything. */
export function weighted<T>(random: Random, choices: readonly (readonly [T, number])[]): T {
  let total = 0;
  for (const [, weight] of choices) total += weight;
  let roll = random.next() * total;
  for (const [item, weight] of choices) {
    roll -= weight;
    if (roll < 0) return item;
  }
  return choices[choices.length - 1]![0];
}
