/**
 * A small seeded pseudo-random generator (mulberry32), so generated groups — in the conformance kit
 * and in randomized tests — are the same on every run of the same seed.
 */
export type RandomInt = (bound: number) => number;

export function seededRandom(seed: number): RandomInt {
  let state = seed >>> 0;
  return (bound: number) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * bound);
  };
}
