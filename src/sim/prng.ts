// A small seeded PRNG (mulberry32) so names, uids and injected faults are reproducible run to run.

export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uniformly distributed 32-bit unsigned integer. */
  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(items.length)]!;
  }

  hex(chars: number): string {
    let out = '';
    while (out.length < chars) out += this.nextUint32().toString(16).padStart(8, '0');
    return out.slice(0, chars);
  }

  /** A version-4-shaped UUID. */
  uuid(): string {
    const h = this.hex(32);
    const variant = '89ab'[this.int(4)]!;
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

// upstream: staging/src/k8s.io/apimachinery/pkg/util/rand/rand.go (alphanums without vowels and look-alikes)
export const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(prng: Prng, length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += NAME_ALPHABET[prng.int(NAME_ALPHABET.length)]!;
  return out;
}
