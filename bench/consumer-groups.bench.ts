import { io, type Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { type Convergence, ConsumerFleet } from './harness/consumer-fleet';
import { CohortProcess } from './harness/cohort-process';
import { processCpuMs } from './harness/process-stats';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { ms, ratio, table } from './harness/stats';
import { largeGroupNodeEnv, memberJoinsLargeGroup, nodeLoopLagMs } from './large-group.bench';
import { topicGrowth } from './rebalance.bench';

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
    "[members N (default 1,000 × BENCH_SCALE) ['forming' (the consumer protocol's forming and join alone)] | 'heartbeat' [other members M (default 10,000 × BENCH_SCALE)] (the heartbeat CPU measure alone)]",
  needsBuild: true,
  run: (args) => consumerGroups(args),
};

/** Kafka's group.initial.rebalance.delay.ms default, for the classic group the join is compared with. */
const INITIAL_DELAY_MS = 3000;
const CONSUMER_REBALANCE_TIMEOUT_MS = 60_000;
const TARGETS = { joinMs: 1000, loopLagMs: 200, formMs: 3000, growMs: 100 };

async function consumerGroups(args: string[]): Promise<void> {
  const heartbeatOnly = args[0] === 'heartbeat';
  const size = args[0] === undefined || heartbeatOnly ? scaled(1000, 10) : Number(args[0]);
  if (!Number.isInteger(size) || size < 1) throw new Error(`members must be a positive integer, not "${args[0]}"`);
  // The A/B of a forming change need not rerun the classic group, the topic growth or the heartbeats.
  const formingOnly = args[1] === 'forming';
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
      await attempt(`${size} members, one joins`, () => oneJoins(node, size, false));
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

interface JoinResult {
  form: Convergence;
  join: Convergence;
  loopLagMs: number;
  cpuMs: number;
  /** Members that got an assignment taking a partition away though their new target keeps all they had; and those that lost one. */
  needlessRevocations: number;
  losers: number;
  troubles: string;
  /** The node's CPU while the group formed, and heartbeats and pushes per member until it had. */
  formCpuMs: number;
  formingTrips: string;
}

/** A stable group of `size` consumer-protocol members forms from empty, then one more member joins. */
async function consumerJoin(node: CohortProcess, size: number): Promise<JoinResult> {
  const groupId = `cg-join-${size}`;
  const partitions = size * 2;
  await node.post('/v1/topics', { name: groupId, partitions });
  const fleet = new ConsumerFleet(node.url, groupId, {
    topic: groupId,
    followPushes: true,
    rebalanceTimeoutMs: CONSUMER_REBALANCE_TIMEOUT_MS,
  });
  try {
    const members = await fleet.connect(size);
    const formCpu = processCpuMs(node.pid) ?? Number.NaN;
    const form = await fleet.converge(partitions, 0, 600_000, () => members.forEach((m) => m.start()));
    const formCpuMs = (processCpuMs(node.pid) ?? Number.NaN) - formCpu;
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
    return {
      form,
      join,
      loopLagMs,
      cpuMs,
      needlessRevocations,
      losers,
      troubles: fleet.troubles(),
      formCpuMs,
      formingTrips,
    };
  } finally {
    await fleet.leave();
  }
}

/** The consumer protocol's forming and join, beside the classic protocol's when `withClassic`. */
async function oneJoins(node: CohortProcess, size: number, withClassic: boolean): Promise<void> {
  const consumer = await attempt(`${size} consumer-protocol members, one joins`, () => consumerJoin(node, size));
  const classic = withClassic
    ? await attempt(`${size} classic members, one joins`, () => memberJoinsLargeGroup(node, size, null))
    : null;
  const value = (v: number | undefined) => (v === undefined ? 'n/a' : ms(v));
  table(
    ['measure', 'consumer protocol', 'classic protocol', 'consumer / classic', 'target (consumer)'],
    [
      [
        `${size} members form from empty → all hold their targets at one epoch`,
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
        `until formed: the node's CPU ${ms(consumer.formCpuMs)}, ${consumer.formingTrips}`,
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
async function cpuOf(node: CohortProcess, count: number, send: () => Promise<number>): Promise<number> {
  const inFlight = 8;
  let sent = 0;
  const errors: number[] = [];
  const cpu = processCpuMs(node.pid) ?? Number.NaN;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (sent < count) {
        sent++;
        const errorCode = await send();
        if (errorCode !== 0) errors.push(errorCode);
      }
    }),
  );
  const used = (processCpuMs(node.pid) ?? Number.NaN) - cpu;
  if (errors.length > 0) throw new Error(`${errors.length} heartbeats failed (first error ${errors[0]})`);
  return used;
}

/** One classic member alone in a group, its assignment from the server's range assignor; resolves with what a Heartbeat needs. */
async function classicMember(
  node: CohortProcess,
  groupId: string,
): Promise<{ socket: Socket; heartbeat: P.HeartbeatRequest }> {
  const socket = io(node.url, { transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const join = (memberId: string) =>
    socket.timeout(30_000).emitWithAck('JoinGroup', {
      groupId,
      sessionTimeoutMs: 60_000,
      rebalanceTimeoutMs: 60_000,
      memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: { topics: [groupId] } }],
      serverAssignor: 'range',
    } satisfies P.JoinGroupRequest) as Promise<P.JoinGroupResponse>;
  let joined = await join('');
  if (joined.errorCode === 79) joined = await join(joined.memberId);
  if (joined.errorCode !== 0 || joined.assignment === undefined)
    throw new Error(`the classic member did not join (error ${joined.errorCode})`);
  return {
    socket,
    heartbeat: { groupId, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null },
  };
}

/** Server CPU (ms) of `half` classic Heartbeats, then `half` steady ConsumerGroupHeartbeats, twice over (after a round of each unmeasured). */
async function heartbeatRounds(
  node: CohortProcess,
  half: number,
  beats: { classic: () => Promise<number>; consumer: () => Promise<number> },
  beforeRound: () => Promise<void>,
): Promise<{ classicCpu: number; consumerCpu: number }> {
  // One unmeasured round of each first: on a fresh node the first thousands of requests pay for the JIT
  // compiling their path (about twice a steady round's CPU, much of it on compiler threads), and that
  // cost would fall on whichever protocol went first.
  await beforeRound();
  await cpuOf(node, half, beats.classic);
  await cpuOf(node, half, beats.consumer);
  // Two alternating rounds each, so a neighbour's load on the shared machine falls on both alike.
  let consumerCpu = 0;
  let classicCpu = 0;
  for (let round = 0; round < 2; round++) {
    await beforeRound();
    classicCpu += await cpuOf(node, half, beats.classic);
    consumerCpu += await cpuOf(node, half, beats.consumer);
  }
  return { classicCpu, consumerCpu };
}

/**
 * `count` members of another group on `node`, left idle with their sessions running (`touch`
 * heartbeats each once, so none is fenced while the measure runs; a real node's members heartbeat every
 * interval, which here would be load measured with the heartbeats). Members come and go on a real node
 * (a deploy restarts a whole group): a first `count` form the group and leave, then as many new ones
 * form it again. (What a burst of joins and leaves did to the garbage collector, docs/operations.md,
 * shows in the full run's measure, after its own join and leave, rather than here.)
 */
async function otherMembers(
  node: CohortProcess,
  count: number,
): Promise<{ fleet: ConsumerFleet; touch: () => Promise<void> }> {
  const groupId = `cg-others-${count}`;
  const partitions = count * 2;
  await node.post('/v1/topics', { name: groupId, partitions });
  const form = async (): Promise<ConsumerFleet> => {
    const formed = new ConsumerFleet(node.url, groupId, {
      topic: groupId,
      followPushes: true,
      rebalanceTimeoutMs: CONSUMER_REBALANCE_TIMEOUT_MS,
    });
    const joining = await formed.connect(count);
    await formed.converge(partitions, 0, 600_000, () => joining.forEach((m) => m.start()));
    return formed;
  };
  await (await form()).leave();
  const fleet = await form();
  const members = fleet.members;
  for (const member of members) member.pause();
  const touch = async () => {
    for (let i = 0; i < members.length; i += 500) {
      const answers = await Promise.all(members.slice(i, i + 500).map((m) => m.steadyHeartbeat()));
      const failed = answers.find((answer) => answer.errorCode !== 0);
      if (failed) throw new Error(`an idle member's heartbeat failed (error ${failed.errorCode})`);
    }
  };
  return { fleet, touch };
}

/**
 * The server CPU of a steady member's heartbeat, classic and consumer protocol, on `node` as it is
 * (`where` says how), then once it also holds `others` members of another group (none: not measured).
 */
async function heartbeatCpu(node: CohortProcess, where: string, others: number): Promise<void> {
  const half = scaled(10_000, 1000);
  const count = half * 2;
  await node.post('/v1/topics', { name: 'cg-steady', partitions: 10 });
  await node.post('/v1/topics', { name: 'classic-steady', partitions: 10 });
  const fleet = new ConsumerFleet(node.url, 'cg-steady', {
    topic: 'cg-steady',
    followPushes: true,
    rebalanceTimeoutMs: CONSUMER_REBALANCE_TIMEOUT_MS,
  });
  const classic = await classicMember(node, 'classic-steady');
  let held: { fleet: ConsumerFleet; touch: () => Promise<void> } | null = null;
  try {
    const [member] = await fleet.connect(1);
    await fleet.converge(10, 0, 30_000, () => member.start());
    member.pause();
    const beats = {
      consumer: () => member.steadyHeartbeat().then((answer) => answer.errorCode),
      classic: () =>
        (
          classic.socket.timeout(30_000).emitWithAck('Heartbeat', classic.heartbeat) as Promise<P.HeartbeatResponse>
        ).then((answer) => answer.errorCode),
    };
    const fresh = await heartbeatRounds(node, half, beats, async () => undefined);
    // The same node once it holds another group's members, their session timers armed, as a busy node does
    // (forming them also leaves the node's garbage collector as a burst of joins does).
    let loaded: { classicCpu: number; consumerCpu: number } | null = null;
    if (others > 0) {
      // The measured members heartbeat meanwhile, so their sessions outlive the forming of the others.
      const keepAlive = setInterval(() => void Promise.all([beats.classic(), beats.consumer()]), 5000);
      try {
        held = await otherMembers(node, others);
      } finally {
        clearInterval(keepAlive);
      }
      // One touch first, outside the rounds: the first heartbeats after forming are not those of a steady node.
      await held.touch();
      loaded = await attempt(`heartbeat CPU beside ${others} other members`, () =>
        heartbeatRounds(node, half, beats, held!.touch),
      );
    }
    const per1000 = (cpu: number) => (cpu * 1000) / count;
    const rows = (on: string, cpu: { classicCpu: number; consumerCpu: number }) => [
      [`classic Heartbeat, ${on}`, ms(per1000(cpu.classicCpu)), '1.00x'],
      [
        `a steady member's ConsumerGroupHeartbeat, ${on}`,
        ms(per1000(cpu.consumerCpu)),
        ratio(cpu.consumerCpu, cpu.classicCpu),
      ],
    ];
    table(
      [`server CPU per 1,000 heartbeats (${count} each, 8 in flight)`, 'CPU', 'vs classic Heartbeat'],
      [...rows(where, fresh), ...(loaded ? rows(`node holding ${others} other consumer members`, loaded) : [])],
    );
    console.log('  target: a ConsumerGroupHeartbeat costs no more than a classic Heartbeat (≤ 1.00x)');
  } finally {
    await held?.fleet.leave();
    await fleet.leave();
    classic.socket.disconnect();
  }
}
