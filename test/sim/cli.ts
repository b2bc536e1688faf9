import { randomInt } from 'node:crypto';
import { BROKEN_RULE_NAMES, type BrokenRule } from './broken-rules';
import { BROKEN_SHARE_RULE_NAMES, type BrokenShareRule } from './coordinator/broken-share-rules';
import { runCoordinatorSeed } from './coordinator/coordinator-run';
import { runRandomSeed, type RandomRunResult } from './random-run';

/**
 * `npm run sim -- --seeds N [--first-seed S]` runs N random fault schedules; `--seed S` replays one
 * exactly (same shape, same faults, same trace). `--break <rule>` deliberately breaks a replication
 * rule to show the simulator catches it (hw-formula, truncate-to-hw, isr-expand-without-epoch-start; with
 * `--share`, redeliver-without-new-state-epoch breaks a share-partition rule instead).
 * `--skip-rules I18,...` leaves invariants unchecked (to see whether a broken rule still shows up as lost
 * data without its direct check). `--coordinator` runs the group coordinator on the replicated partitions instead (commit load while
 * partition leaders are killed; every acknowledged OffsetCommit and SyncGroup must survive); `--consumer` adds KIP-848
 * consumer groups to it (three groups of consumer-protocol members with churn, pauses and fencing, the
 * ownership and epoch invariants checked after every step).
 * `--fresh` draws the N seeds at random (never seen before) instead of counting from `--first-seed`.
 * `--parts-per-turn P` lets a coordinator reconcile only P parked consumer heartbeats a turn (200 by
 * default): the heartbeat batches of the small simulated groups then span turns, with the faults between.
 * Exits non-zero on the first violation, printing the seed, the trace and the command that replays it
 * (`--keep-going` runs every seed and lists the failed ones at the end).
 */
function parseArgs(argv: string[]): {
  seeds: number;
  first: number;
  fresh: boolean;
  keepGoing: boolean;
  single?: number;
  brokenRule?: BrokenRule;
  brokenShare?: BrokenShareRule;
  faultPhaseMs?: number;
  verbose: boolean;
  coordinator: boolean;
  consumer: boolean;
  share: boolean;
  skipRules?: string[];
  partsPerTurn?: number;
} {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      args.set(a.slice(2), next);
      i++;
    } else args.set(a.slice(2), 'true');
  }
  const int = (name: string, fallback: number) => {
    const v = args.get(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got ${v}`);
    return n;
  };
  const broken = args.get('break');
  const brokenShare = BROKEN_SHARE_RULE_NAMES.find((name) => name === broken);
  const brokenRule = brokenShare ? undefined : (broken as BrokenRule | undefined);
  if (brokenRule && !BROKEN_RULE_NAMES.includes(brokenRule)) {
    throw new Error(`--break must be one of ${[...BROKEN_RULE_NAMES, ...BROKEN_SHARE_RULE_NAMES].join(', ')}`);
  }
  if (brokenShare && !args.has('share')) throw new Error(`--break ${brokenShare} needs --share`);
  return {
    seeds: int('seeds', 100),
    first: int('first-seed', 1),
    fresh: args.has('fresh'),
    keepGoing: args.has('keep-going'),
    single: args.has('seed') ? int('seed', 0) : undefined,
    brokenRule,
    brokenShare,
    faultPhaseMs: args.has('duration') ? int('duration', 20_000) : undefined,
    verbose: args.has('verbose'),
    coordinator: args.has('coordinator') || args.has('consumer') || args.has('share'),
    consumer: args.has('consumer'),
    share: args.has('share'),
    skipRules: args.get('skip-rules')?.split(','),
    partsPerTurn: args.has('parts-per-turn') ? Math.max(1, int('parts-per-turn', 200)) : undefined,
  };
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const seeds =
    opts.single !== undefined
      ? [opts.single]
      : Array.from({ length: opts.seeds }, (_, i) => (opts.fresh ? randomInt(1, 2 ** 31 - 1) : opts.first + i));
  const started = Date.now();
  let steps = 0;
  const failed: number[] = [];
  let running: number | undefined;
  // A run that awaits something the simulated clock will never bring leaves Node's event loop empty, and
  // Node would exit 0 without a word: that is a failed seed.
  process.on('beforeExit', () => {
    if (running === undefined) return;
    console.error(`\nseed ${running} FAILED: the run stopped awaiting something no simulated event will bring`);
    process.exit(1);
  });
  for (const seed of seeds) {
    running = seed;
    // Production code that throws inside a simulated step fails the seed like a violation (with its replay line).
    const result = await (
      opts.coordinator
        ? coordinatorSeed(seed, opts.brokenRule ?? opts.brokenShare, opts, opts.consumer, opts.share)
        : runRandomSeed(seed, {
            brokenRule: opts.brokenRule,
            faultPhaseMs: opts.faultPhaseMs,
            skipRules: opts.skipRules,
          })
    ).catch((e: unknown): RandomRunResult => ({
      seed,
      ok: false,
      violations: [`threw: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`],
      trace: '',
      summary: 'the run threw',
      steps: 0,
      outcomes: {},
    }));
    running = undefined;
    steps += result.steps;
    if (!result.ok) {
      console.error(`\nseed ${seed} FAILED (${result.summary})`);
      console.error(result.violations.join('\n'));
      console.error(`\n--- trace (last lines) ---\n${result.trace}`);
      console.error(
        `\nreplay: npm run sim -- --seed ${seed}${opts.consumer ? ' --consumer' : ''}${opts.share ? ' --share' : ''}${opts.coordinator && !opts.consumer && !opts.share ? ' --coordinator' : ''}${opts.faultPhaseMs !== undefined ? ` --duration ${opts.faultPhaseMs}` : ''}${opts.partsPerTurn !== undefined ? ` --parts-per-turn ${opts.partsPerTurn}` : ''}${opts.brokenRule || opts.brokenShare ? ` --break ${opts.brokenRule ?? opts.brokenShare}` : ''}`,
      );
      process.exitCode = 1;
      failed.push(seed);
      if (!opts.keepGoing) return;
      continue;
    }
    if (opts.verbose || opts.single !== undefined) {
      console.log(
        `seed ${seed} ok: ${result.summary} steps=${result.steps} outcomes=${JSON.stringify(result.outcomes)}`,
      );
      if (opts.verbose) console.log(result.trace);
    } else if (opts.fresh ? (seeds.indexOf(seed) + 1) % 25 === 0 : seed % 50 === 0) {
      console.log(`... seed ${seed} ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
  }
  if (failed.length > 0) {
    console.error(`\n${failed.length} of ${seeds.length} seeds failed: ${failed.join(' ')}`);
    return;
  }
  console.log(
    `${seeds.length} ${opts.fresh ? 'fresh seeds' : `seeds from ${seeds[0]}`} passed; ${steps} simulated steps in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** A coordinator run, reported in the same shape as a replication run. */
async function coordinatorSeed(
  seed: number,
  broken: BrokenRule | BrokenShareRule | undefined,
  { faultPhaseMs, partsPerTurn }: { faultPhaseMs?: number; partsPerTurn?: number },
  consumer: boolean,
  share: boolean,
): Promise<RandomRunResult> {
  const brokenShare = BROKEN_SHARE_RULE_NAMES.find((name) => name === broken);
  const r = await runCoordinatorSeed(seed, {
    brokenRule: brokenShare ? undefined : (broken as BrokenRule | undefined),
    brokenShare,
    faultPhaseMs,
    partsPerTurn,
    consumerGroups: consumer ? 3 : 0,
    shareGroup: share,
  });
  return {
    seed,
    ok: r.violations.length === 0,
    violations: r.violations,
    trace: r.trace,
    summary: `coordinator: acked commits=${r.ledger.ackedCommits} leader kills=${r.leaderKills}${r.consumer ? ` isolations=${r.leaderIsolations}` : ''} LOAD_IN_PROGRESS answers=${r.ledger.loadInProgressAnswers}${r.consumer ? `; ${r.consumer.summary()}` : ''}${r.share ? `; ${r.share.summary()}` : ''}`,
    steps: r.steps,
    outcomes: {},
  };
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 2;
});
