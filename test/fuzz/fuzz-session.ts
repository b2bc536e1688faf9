import { CanaryGroup } from './canary-group';
import { type FuzzOptions, type FuzzReport, runFuzz } from './fuzz-runner';

export interface FuzzSessionResult {
  report: FuzzReport;
  /** The canary's state before and after; equal when the fuzzer changed nothing. */
  canaryBefore: unknown;
  canaryAfter: unknown;
  /** /health/live answered 200 after the run. */
  alive: boolean;
}

/** The seed to use: FUZZ_SEED when set (a replay), else a fresh one, printed by the caller. */
export function fuzzSeed(): number {
  const fromEnv = process.env.FUZZ_SEED;
  return fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Math.floor(Math.random() * 2 ** 31);
}

/** FUZZ_CASES=12,40: replay only those cases of the seed. */
export function fuzzOnlyCases(): number[] | undefined {
  const only = process.env.FUZZ_CASES;
  return only ? only.split(',').map((index) => Number(index.trim())) : undefined;
}

/**
 * One fuzz run against a node at `url`: forms the canary group, runs the fuzzer, checks the canary and
 * the node's liveness after it. Used by the bounded run in `npm test` and the large one in `npm run fuzz`.
 */
export async function fuzzSession(
  url: string,
  seed: number,
  requests: number,
  only?: number[],
  extra: Partial<FuzzOptions> = {},
): Promise<FuzzSessionResult> {
  const canary = await CanaryGroup.form(url);
  try {
    const canaryBefore = await canary.snapshot();
    const report = await runFuzz({
      ...extra,
      url,
      seed,
      requests,
      only,
      targets: {
        canaryGroup: CanaryGroup.groupId,
        canaryTopic: CanaryGroup.topic,
        canaryGeneration: canary.generationId,
      },
    });
    const alive = await fetch(`${url}/health/live`).then(
      (r) => r.status === 200,
      () => false,
    );
    const canaryAfter = await canary.snapshot();
    return { report, canaryBefore, canaryAfter, alive };
  } finally {
    await canary.close();
  }
}
