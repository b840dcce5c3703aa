/**
 * A small seeded generator (mulberry32): every kernel, input and transformation
 * chain of the differential tests is a function of one 32-bit seed, so a report's
 * seed reproduces the case exactly, on any machine.
 */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (!items.length) throw new Error('Rng.pick: nothing to pick from');
    return items[Math.floor(this.next() * items.length)];
  }

  /** A random subset, in the order of `items`. */
  subset<T>(items: readonly T[], p = 0.5): T[] {
    return items.filter(() => this.chance(p));
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let k = out.length - 1; k > 0; k--) {
      const j = Math.floor(this.next() * (k + 1));
      [out[k], out[j]] = [out[j], out[k]];
    }
    return out;
  }
}
