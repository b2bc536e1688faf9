/** Randomness port: seeded in simulations so a failing seed replays exactly. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
}

/** mulberry32: small, fast and good enough for scheduling faults and jitter. */
export class SeededRandom implements Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, bound). */
  int(bound: number): number {
    return Math.floor(this.next() * bound);
  }
}

/** The production source, kept behind the port so libraries never call Math.random directly. */
export class SystemRandom implements Random {
  next(): number {
    return Math.random();
  }
}
