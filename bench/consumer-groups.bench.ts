import { type Convergence, ConsumerFleet } from './harness/consumer-fleet';
import type { ConsumerMember } from './harness/consumer-member';
import { CohortProcess } from './harness/cohort-process';
import { CONSUMER_REBALANCE_TIMEOUT_MS, heartbeatCpu } from './consumer-heartbeat-cpu';
import { pageFaultMicros } from './harness/page-fault-cost';
import { processCpuMs, processMinorFaults } from './harness/process-stats';
import { scaled } from './harness/scale';
import { SteadyHeartbeatProbe } from './harness/steady-heartbeat-probe';
import { attempt, type BenchSection } from './harness/section';
import { ms, ratio, table } from './harness/stats';
import { largeGroupNodeEnv, memberJoinsLargeGroup, nodeLoopLagMs } from './large-group.bench';
import { topicGrowth } from './rebalance.bench';
import { subscriptionCost } from './consumer-subscription-cost';

/**
 * Issue 27's targets for Kafka 4's consumer groups (KIP-848), each beside the classic protocol measured
 * in the same run on the same node: one member joining a stable group (and how long the group took to
 * form), a topic growing under a group with and without `HeartbeatNow` pushes, and the server CPU of a
 * steady member's heartbeat. The members are bench/harness/consumer-member.ts (a bare protocol member,
 * lighter than the SDK's, so 10,000 fit in this process), all in this process.
 */
export const consumerGroupsSection: BenchSection = {
  name: 'consumer-groups',
  summary:
    'consumer protocol (KIP-848): one member joins N (vs classic), forming, topic 100→1,000 partitions with/without HeartbeatNow, heartbeat CPU vs classic',
  usage:
    "[members N (default 1,000 × BENCH_SCALE) ['forming' (the consumer protocol's forming and join alone) [delay D ms: the first member starts alone, slow (it takes D ms to act on each push and assignment), and the others D ms after it]] | 'heartbeat' [other members M (default 10,000 × BENCH_SCALE)] (the heartbeat CPU measure alone) | 'subscription' [names N (default 100,000)] (one member subscribing to N names of topics that do not exist: its heartbeats' cost, and another group's meanwhile)]",
  needsBuild: true,
  run: (args) => consumerGroups(args),
};

/** Kafka's group.initial.rebalance.delay.ms default, for the classic group the join is compared with. */
const INITIAL_DELAY_MS = 3000;
const TARGETS = { joinMs: 1000, loopLagMs: 200, formMs: 3000, growMs: 100 };

async function consumerGroups(args: string[]): Promise<void> {
  if (args[0] === 'subscription') return wideSubscription(args[1]);
  const heartbeatOnly = args[0] === 'heartbeat';
  const size = args[0] === undefined || heartbeatOnly ? scaled(1000, 10) : Number(args[0]);
  if (!Number.isInteger(size) || size < 1) throw new Error(`members must be a positive integer, not "${args[0]}"`);
  // The A/B of a forming change need not rerun the classic group, the topic growth or the heartbeats.
  const formingOnly = args[1] === 'forming';
  // A forming whose first member starts alone and is slow to act (see consumerJoin).
  const slowFirstMs = formingOnly && args[2] !== undefined ? Number(args[2]) : undefined;
  if (slowFirstMs !== undefined && !(Number.isInteger(slowFirstMs) && slowFirstMs >= 0))
    throw new Error(`the first member's delay must be a non-negative integer (ms), not "${args[2]}"`);
  // The heartbeat measure's second figure is on the node once it holds this many members of another group
  // (the join measure's size in the full run, so the default run stays about as long as it was).
  const others = heartbeatOnly ? (args[1] === undefined ? scaled(10_000, 10) : Number(args[1])) : size;
  if (!Number.isInteger(others) || others < 0)
    throw new Error(`other members must be a non-negative integer, not "${args[1]}"`);
  const node = await CohortProcess.start({
    ...largeGroupNodeEnv(size),
    GROUP_INITIAL_REBALANCE_DELAY_MS: String(INITIAL_DELAY_MS),
    // The heartbeat CPU measure sends thousands a second on one connection, past the per-connection
    // default of 1,000 events/s (its THROTTLING_QUOTA_EXCEEDED answers would be measured instead).
    RATE_LIMIT_SOCKET_EVENTS_PER_SECOND: '0',
  });
  try {
    console.log(
      `consumer-protocol members in this process, uniform assignor (the default), heartbeat interval as the node says (GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS, 5 s by default); ` +
        `classic figures from the large-group and rebalance measures on the same node (leader assigns, GROUP_INITIAL_REBALANCE_DELAY_MS ${INITIAL_DELAY_MS}); RATE_LIMIT_SOCKET_EVENTS_PER_SECOND off`,
    );
    if (formingOnly) {
      await attempt(`${size} members, one joins`, () => oneJoins(node, size, false, slowFirstMs));
      return;
    }
    if (!heartbeatOnly) {
      await attempt(`${size} members, one joins`, () => oneJoins(node, size, true));
      await attempt('topic 100 → 1,000 partitions', () => topicGrows(node));
    }
    await attempt('heartbeat CPU', () =>
      heartbeatCpu(node, heartbeatOnly ? 'fresh node' : 'after the measures above', others),
    );
  } finally {
    await node.dispose();
  }
}

/** The 'subscription' mode, on a node of its own: limits as by default (MAX_PAYLOAD_BYTES bounds the names), but no rate limit, which the steady heartbeats in a row would meet. */
async function wideSubscription(arg: string | undefined): Promise<void> {
  const names = arg === undefined ? 100_000 : Number(arg);
  if (!Number.isInteger(names) || names < 0) throw new Error(`names must be a non-negative integer, not "${arg}"`);
  const node = await CohortProcess.start({ RATE_LIMIT_SOCKET_EVENTS_PER_SECOND: '0' });
  try {
    await attempt(`a subscription of ${names} names`, () => subscriptionCost(node, names));
  } finally {
    await node.dispose();
  }
}

interface JoinResult {
  form: Convergence;
  /** The newcomer leaves the group it joined. */
  leave: Convergence;
  join: Convergence;
  loopLagMs: number;
  cpuMs: number;
  /** Members that got an assignment taking a partition away though their new target keeps all they had; and those that lost one. */
  needlessRevocations: number;
  losers: number;
  troubles: string;
  /** The node's CPU while the group formed, and heartbeats and pushes per member until it had. */
  formCpuMs: number;
  /** The node's minor page faults while forming: pages of memory it touched for the first time. */
  formFaults: number;
  formingTrips: string;
  /** Another group's steady heartbeats on the same shard while the group formed: worst and median round trip. */
  probe: { worstMs: number; medianMs: number; count: number };
}

/**
 * A stable group of `size` consumer-protocol members forms from empty, then one more member joins.
 * With `slowFirstMs`, the first member starts alone and the others that long after it, while it takes
 * that long to act on each push and new assignment: its first answer gives it every partition, and
 * every later joiner's target is held by a member slow to revoke it. This is the forming whose first
 * heartbeat reached an idle node alone, its client then busy (here, this process sending the others'
 * joins) or committing before it revokes: the runs whose joiners were answered without their
 * partitions and pushed to heartbeat a third time.
 */
async function consumerJoin(node: CohortProcess, size: number, slowFirstMs?: number): Promise<JoinResult> {
  const groupId = `cg-join-${size}`;
  const partitions = size * 2;
  await node.post('/v1/topics', { name: groupId, partitions });
  const fleet = new ConsumerFleet(node.url, groupId, {
    topic: groupId,
    followPushes: true,
    rebalanceTimeoutMs: CONSUMER_REBALANCE_TIMEOUT_MS,
  });
  const probe = await SteadyHeartbeatProbe.start(node, groupId);
  try {
    const members = await fleet.connect(size);
    const formCpu = processCpuMs(node.pid) ?? Number.NaN;
    const faultsBefore = processMinorFaults(node.pid);
    probe.begin();
    const form = await fleet.converge(partitions, 0, 600_000, () =>
      slowFirstMs === undefined ? members.forEach((m) => m.start()) : slowFirst(members, slowFirstMs),
    );
    const formCpuMs = (processCpuMs(node.pid) ?? Number.NaN) - formCpu;
    const formFaults = processMinorFaults(node.pid) - faultsBefore;
    const probed = await probe.stop();
    const formingTrips = fleet.roundTrips();
    const before = fleet.members.map((m) => ({ owned: new Set(m.owned), revocations: m.revocations }));
    const [newcomer] = await fleet.connect(1);
    await nodeLoopLagMs(node);
    const cpu = processCpuMs(node.pid) ?? Number.NaN;
    const join = await fleet.converge(partitions, fleet.epoch(), 60_000, () => newcomer.start());
    const cpuMs = (processCpuMs(node.pid) ?? Number.NaN) - cpu;
    const loopLagMs = await nodeLoopLagMs(node);
    let needlessRevocations = 0;
    let losers = 0;
    before.forEach((was, i) => {
      const member = fleet.members[i];
      const keepsAll = [...was.owned].every((partition) => member.owned.has(partition));
      if (!keepsAll) losers++;
      else if (member.revocations > was.revocations) needlessRevocations++;
    });
    // The newcomer leaves again: the members it took partitions from get them back, told by the
    // coordinator rather than at their next heartbeat.
    const joinedEpoch = fleet.epoch();
    fleet.members.splice(fleet.members.indexOf(newcomer), 1);
    const leave = await fleet.converge(partitions, joinedEpoch, 60_000, () => newcomer.leave());
    return {
      form,
      join,
      leave,
      loopLagMs,
      cpuMs,
      needlessRevocations,
      losers,
      troubles: fleet.troubles(),
      formCpuMs,
      formFaults,
      formingTrips,
      probe: probed,
    };
  } finally {
    await fleet.leave();
    await probe.leave();
  }
}

/** The first member starts alone and slow to act, the others `delayMs` after it. */
function slowFirst(members: ConsumerMember[], delayMs: number): void {
  const [first, ...rest] = members;
  first.actDelayMs = delayMs;
  first.start();
  setTimeout(() => rest.forEach((m) => m.start()), delayMs);
}

/** The consumer protocol's forming and join, beside the classic protocol's when `withClassic`. */
async function oneJoins(node: CohortProcess, size: number, withClassic: boolean, slowFirstMs?: number): Promise<void> {
  const consumer = await attempt(`${size} consumer-protocol members, one joins`, () =>
    consumerJoin(node, size, slowFirstMs),
  );
  const classic = withClassic
    ? await attempt(`${size} classic members, one joins`, () => memberJoinsLargeGroup(node, size, null))
    : null;
  const value = (v: number | undefined) => (v === undefined ? 'n/a' : ms(v));
  table(
    ['measure', 'consumer protocol', 'classic protocol', 'consumer / classic', 'target (consumer)'],
    [
      [
        slowFirstMs === undefined
          ? `${size} members form from empty → all hold their targets at one epoch`
          : `${size} members form, the first alone and slow (${slowFirstMs} ms) → all hold their targets`,
        value(consumer?.form.epochMs),
        value(classic?.formMs),
        ratio(consumer?.form.epochMs ?? Number.NaN, classic?.formMs ?? Number.NaN),
        `3 s for 10,000 (${ratio(consumer?.form.epochMs ?? Number.NaN, TARGETS.formMs)} of it at ${size})`,
      ],
      [
        `${size} members + 1 joins → every member holds its new target`,
        value(consumer?.join.heldMs),
        value(classic?.joinMs),
        ratio(consumer?.join.heldMs ?? Number.NaN, classic?.joinMs ?? Number.NaN),
        `1 s (${ratio(consumer?.join.heldMs ?? Number.NaN, TARGETS.joinMs)})`,
      ],
      [
        `then it leaves → every member holds its new target`,
        value(consumer?.leave.heldMs),
        'n/a',
        '',
        'none (Kafka: the next heartbeat, 5 s)',
      ],
      [
        "the node's worst event-loop delay during the join",
        value(consumer?.loopLagMs),
        value(classic?.nodeJoinLoopLagMs),
        ratio(consumer?.loopLagMs ?? Number.NaN, classic?.nodeJoinLoopLagMs ?? Number.NaN),
        `200 ms (${ratio(consumer?.loopLagMs ?? Number.NaN, TARGETS.loopLagMs)})`,
      ],
      [
        "the node's CPU during the join",
        value(consumer?.cpuMs),
        value(classic?.nodeJoinCpuMs),
        ratio(consumer?.cpuMs ?? Number.NaN, classic?.nodeJoinCpuMs ?? Number.NaN),
        '',
      ],
      [
        'members revoked though they lose nothing',
        consumer ? String(consumer.needlessRevocations) : 'n/a',
        classic ? `all ${size} paused` : 'n/a',
        '',
        '0',
      ],
    ],
  );
  if (consumer)
    console.log(
      `  consumer members: the last held its new target ${ms(consumer.form.heldMs)} into forming; after the join, ${consumer.losers} gave partitions to the newcomer, ` +
        `the others were not told and reached the new epoch at their next heartbeat (all at it after ${ms(consumer.join.epochMs)}); ${consumer.troubles}; ` +
        `until formed: the node's CPU ${ms(consumer.formCpuMs)}, ${consumer.formingTrips}; ${faultCost(consumer.formFaults)}`,
    );
  if (consumer)
    console.log(
      `  another group's member on the same coordinator shard, heartbeating back to back while the ${size} formed: ` +
        `worst round trip ${ms(consumer.probe.worstMs)}, median ${ms(consumer.probe.medianMs)} (${consumer.probe.count} heartbeats)`,
    );
}

/**
 * The node's page faults while forming and what they cost on this machine (measured now, with the node
 * idle): forming grows a fresh node by hundreds of megabytes, and some machines charge over 10 µs a page.
 */
function faultCost(faults: number): string {
  if (!Number.isFinite(faults)) return "the node's page faults unknown";
  const micros = pageFaultMicros();
  return (
    `the node's minor page faults ${faults} (memory touched for the first time; about ${ms((faults * micros) / 1000)} ` +
    `at this machine's ${micros.toFixed(1)} µs a page)`
  );
}

/** 10 members hold a topic of 100 partitions; it grows to 1,000; the time until every member holds its new target. */
async function growUnder(node: CohortProcess, followPushes: boolean): Promise<Convergence & { troubles: string }> {
  const groupId = `cg-grow-${followPushes ? 'push' : 'interval'}`;
  await node.post('/v1/topics', { name: groupId, partitions: 100 });
  const fleet = new ConsumerFleet(node.url, groupId, {
    topic: groupId,
    followPushes,
    rebalanceTimeoutMs: CONSUMER_REBALANCE_TIMEOUT_MS,
  });
  try {
    const members = await fleet.connect(10);
    await fleet.converge(100, 0, 60_000, () => members.forEach((m) => m.start()));
    const grown = await fleet.converge(1000, fleet.epoch(), 60_000, () =>
      node.post(`/v1/topics/${groupId}`, { partitions: 1000 }, 'PATCH'),
    );
    return { ...grown, troubles: fleet.troubles() };
  } finally {
    await fleet.leave();
  }
}

async function topicGrows(node: CohortProcess): Promise<void> {
  const pushed = await attempt('with HeartbeatNow', () => growUnder(node, true));
  const waited = await attempt('without HeartbeatNow', () => growUnder(node, false));
  // The classic protocol's figure for the same change: the rebalance section's measure, one round.
  const classic = await attempt('classic protocol', async () => (await topicGrowth(node, null, 1))[0]);
  table(
    ['topic 100 → 1,000 partitions under 10 members', 'every member holds its new target', 'vs 100 ms target', 'note'],
    [
      [
        'members heartbeat at once on HeartbeatNow',
        pushed ? ms(pushed.heldMs) : 'n/a',
        ratio(pushed?.heldMs ?? Number.NaN, TARGETS.growMs),
        pushed ? `all at the new epoch after ${ms(pushed.epochMs)}; ${pushed.troubles}` : '',
      ],
      [
        'members wait for their heartbeat interval',
        waited ? ms(waited.heldMs) : 'n/a',
        ratio(waited?.heldMs ?? Number.NaN, TARGETS.growMs),
        waited ? `all at the new epoch after ${ms(waited.epochMs)}; ${waited.troubles}` : '',
      ],
      [
        'classic protocol, leader assigns (range)',
        classic === null ? 'n/a' : ms(classic),
        ratio(classic ?? Number.NaN, TARGETS.growMs),
        `with HeartbeatNow / classic: ${ratio(pushed?.heldMs ?? Number.NaN, classic ?? Number.NaN)}`,
      ],
    ],
  );
  console.log(
    `  the push's gain: ${ratio(waited?.heldMs ?? Number.NaN, pushed?.heldMs ?? Number.NaN)} faster with HeartbeatNow`,
  );
}

/** `count` requests, `inFlight` at a time; the node's CPU (ms) meanwhile. */
