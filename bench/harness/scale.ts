/**
 * BENCH_SCALE (from 0.01 to 1, default 1) shrinks the sizes of every section of `npm run bench` for a
 * quick look: `BENCH_SCALE=0.1 npm run bench -- commits`. Durations do not shrink, only sizes (members,
 * sockets, groups, records), so a figure at a small scale is a smaller case measured as long.
 */
function readScale(raw: string | undefined): number {
  const value = Number(raw ?? '1');
  if (!Number.isFinite(value) || value <= 0) throw new Error(`BENCH_SCALE must be a number in (0, 1], not "${raw}"`);
  return Math.min(1, Math.max(0.01, value));
}

export const BENCH_SCALE = readScale(process.env.BENCH_SCALE);

/** `full` shrunk by BENCH_SCALE, rounded, and never below `minimum` (what the measurement still needs). */
export function scaled(full: number, minimum: number): number {
  return Math.max(minimum, Math.round(full * BENCH_SCALE));
}
