/**
 * `npm run fuzz`: builds the app, starts one node as its own process (`node dist/src/main.js`, as
 * `npm start` runs it), sends FUZZ_REQUESTS (default 100,000) fuzzed requests and prints the figures.
 * Exits 1 on any failure, on a case the fuzzer could not send, when the node died, or when the canary group changed. FUZZ_SEED / FUZZ_CASES
 * replay a run or some of its cases; FUZZ_MAX_MINUTES bounds the run's time (on a busy machine) and
 * the report then says how many requests were sent.
 */
import { isDeepStrictEqual } from 'node:util';
import { buildApp, CohortProcess } from '../../bench/harness/cohort-process';
import { formatReport } from './fuzz-runner';
import { fuzzOnlyCases, fuzzSeed, fuzzSession } from './fuzz-session';

async function main(): Promise<number> {
  const requests = Number(process.env.FUZZ_REQUESTS ?? 100_000);
  const seed = fuzzSeed();
  console.log(`fuzz: building, then ${requests} requests with seed ${seed}`);
  buildApp();
  const startedAt = Date.now();
  const node = await CohortProcess.start({
    LOG_LEVEL: 'warn',
    GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
    GROUP_MIN_SESSION_TIMEOUT_MS: '100',
    // Tens of thousands of REST cases from one address are far over RATE_LIMIT_REST_PER_MINUTE, which
    // counts every path: they would be answered 429 instead of reaching the handlers they probe, the
    // canary's REST reads included. The limit has tests of its own (edge-limits, cluster-rate-limit).
    RATE_LIMIT_REST_PER_MINUTE: '0',
  });
  try {
    await node.post('/v1/topics', { name: 'fz-t', partitions: 4 });
    const minutes = Number(process.env.FUZZ_MAX_MINUTES ?? 0);
    const result = await fuzzSession(node.url, seed, requests, fuzzOnlyCases(), {
      deadline: minutes > 0 ? Date.now() + minutes * 60_000 : undefined,
      onProgress: (started, report) =>
        console.log(
          `  ${started} started, ${report.failures.length} failures, ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
        ),
    });
    console.log(formatReport(result.report, 'FUZZ_SEED=<seed> FUZZ_CASES=<cases> npm run fuzz'));
    const canaryUnchanged = isDeepStrictEqual(result.canaryAfter, result.canaryBefore);
    console.log(`  node alive after the run: ${result.alive}; canary group unchanged: ${canaryUnchanged}`);
    if (!canaryUnchanged)
      console.log(
        `  canary before: ${JSON.stringify(result.canaryBefore)}\n  canary after:  ${JSON.stringify(result.canaryAfter)}`,
      );
    return result.report.failures.length === 0 && result.report.sent.unsendable === 0 && result.alive && canaryUnchanged
      ? 0
      : 1;
  } finally {
    await node.dispose();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
