/**
 * Sides of a comparison measured in short alternating rounds within one run, instead of each once, one
 * after the other: on a shared machine the cores left to a run move by 2× within minutes, so a side
 * measured once is measured at one moment, and one noisy moment decided the ratio. Each round runs every
 * side once, for the same time, each after the same unmeasured lead-in (a side sat idle while the others
 * ran); the order goes forward in even rounds and back in odd ones, so over an even number of rounds no
 * side is favoured by its place (first after an idle spell, or right after a side that left the disk or
 * the caches busy).
 */
export interface RoundSide<R extends { perSecond: number }> {
  /** Runs the side's closed loops for `ms` and says how they went. */
  run(ms: number): Promise<R>;
  /** Unmeasured, before the side's lead-in each round (e.g. refilling a queue that would run dry). */
  prepare?(): Promise<void>;
}

export interface RoundPlan {
  /** Each side runs this long unmeasured once, in the first round's order, before the rounds. */
  warmUpMs: number;
  rounds: number;
  roundMs: number;
  leadInMs: number;
}

/** Which sides run in round `round`, in order: forward in even rounds, back in odd ones. */
export function roundOrder(sides: number, round: number): number[] {
  const forward = Array.from({ length: sides }, (_, i) => i);
  return round % 2 === 0 ? forward : forward.reverse();
}

/** Every side's measured runs, round by round (`result[side][round]`). */
export async function interleavedRounds<R extends { perSecond: number }>(
  sides: readonly RoundSide<R>[],
  { warmUpMs, rounds, roundMs, leadInMs }: RoundPlan,
): Promise<R[][]> {
  for (const index of roundOrder(sides.length, 0)) {
    await sides[index].prepare?.();
    await sides[index].run(warmUpMs);
  }
  const results: R[][] = sides.map(() => []);
  for (let round = 0; round < rounds; round++)
    for (const index of roundOrder(sides.length, round)) {
      const side = sides[index];
      await side.prepare?.();
      await side.run(leadInMs);
      results[index].push(await side.run(roundMs));
    }
  return results;
}

/**
 * The ratio of two sides as the median of their per-round ratios, rather than the ratio of their
 * medians: the two ran in the same round, seconds apart, so a slow spell of the machine that lasts
 * longer than a round (another process's benchmark) slows both and cancels out of that round's ratio
 * (a paired comparison), while a spell that hits one side's round alone makes one outlying ratio,
 * which the median passes over. The ratio of medians pairs nothing: each median can come from a
 * different moment of the run, and the ratio keeps the load's drift between them.
 */
export function medianRatio(numerators: readonly number[], denominators: readonly number[]): number {
  if (numerators.length !== denominators.length) throw new Error('one figure per round on each side');
  return middle(numerators.map((n, i) => n / denominators[i]));
}

/**
 * The median of the rounds' figures; of an even count, the mean of the two middle ones (the bench's
 * `median` takes the lower one, which over six rounds would lean every figure down).
 */
export function middle(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}
