import { io, type Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { ConsumerFleet } from './harness/consumer-fleet';
import type { CohortProcess } from './harness/cohort-process';
import { processRunMs } from './harness/process-stats';
import { scaled } from './harness/scale';
import { attempt } from './harness/section';
import { median, ms, table } from './harness/stats';

/**
 * Issue 27's heartbeat target, a part of `npm run bench -- consumer-groups`: the node's CPU per steady
 * `ConsumerGroupHeartbeat` against a classic `Heartbeat`, alternated on the same node, on a fresh node and
 * on one that holds another group's idle members.
 */

/** Long enough that the bench's members are never fenced for a slow revocation on a busy machine. */
export const CONSUMER_REBALANCE_TIMEOUT_MS = 60_000;

async function cpuOf(node: CohortProcess, count: number, send: () => Promise<number>): Promise<number> {
  const inFlight = 8;
  let sent = 0;
  const errors: number[] = [];
  const cpu = processRunMs(node.pid) ?? Number.NaN;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (sent < count) {
        sent++;
        const errorCode = await send();
        if (errorCode !== 0) errors.push(errorCode);
      }
    }),
  );
  const used = (processRunMs(node.pid) ?? Number.NaN) - cpu;
  if (errors.length > 0) throw new Error(`${errors.length} heartbeats failed (first error ${errors[0]})`);
  return used;
}

/**
 * One classic member alone in a group, as a real classic consumer is one: JoinGroup (KIP-394's member id
 * first), then SyncGroup, in which it leads and gives itself every partition of the group's topic, then
 * Heartbeats. (A member that joined and never synced would be dropped once the group's pending-sync
 * deadline passed, and its heartbeats would then fail with 25 UNKNOWN_MEMBER_ID.) Resolves with what a
 * Heartbeat needs.
 */
async function classicMember(
  node: CohortProcess,
  groupId: string,
  partitions: number,
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
      protocols: [{ name: 'range', metadata: { topics: [groupId] } satisfies P.Subscription }],
    } satisfies P.JoinGroupRequest) as Promise<P.JoinGroupResponse>;
  let joined = await join('');
  if (joined.errorCode === 79) joined = await join(joined.memberId);
  if (joined.errorCode !== 0) throw new Error(`the classic member did not join (error ${joined.errorCode})`);
  if (joined.leader !== joined.memberId) throw new Error('the classic member, alone in its group, does not lead it');
  const own: P.MemberAssignment = {
    partitions: [{ topic: groupId, partitions: Array.from({ length: partitions }, (_, p) => p) }],
  };
  const synced = (await socket.timeout(30_000).emitWithAck('SyncGroup', {
    groupId,
    generationId: joined.generationId,
    memberId: joined.memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocolName: joined.protocolName,
    assignments: [{ memberId: joined.memberId, assignment: own }],
  } satisfies P.SyncGroupRequest)) as P.SyncGroupResponse;
  if (synced.errorCode !== 0) throw new Error(`the classic member did not sync (error ${synced.errorCode})`);
  return {
    socket,
    heartbeat: { groupId, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null },
  };
}

/** Measured pairs of rounds: in each, one round with the classic Heartbeats first and one with the consumer's. */
const PAIRS = 5;

/** Each pair's server CPU (ms), per protocol: the two rounds of a pair added up. */
interface Pairs {
  classic: number[];
  consumer: number[];
}

/**
 * Server CPU (ms) of `perRound` classic Heartbeats and `perRound` steady ConsumerGroupHeartbeats, in
 * PAIRS pairs of rounds, each round after `beforeRound`.
 */
async function heartbeatRounds(
  node: CohortProcess,
  perRound: number,
  beats: { classic: () => Promise<number>; consumer: () => Promise<number> },
  beforeRound: () => Promise<void>,
): Promise<Pairs> {
  // One unmeasured round of each first: on a fresh node the first thousands of requests pay for the JIT
  // compiling their path (about twice a steady round's CPU, much of it on compiler threads), and that
  // cost would fall on whichever protocol went first.
  await beforeRound();
  await cpuOf(node, perRound, beats.classic);
  await cpuOf(node, perRound, beats.consumer);
  // What `beforeRound` leaves (the garbage of 10,000 idle members' heartbeats, collected by the next
  // scavenge, which copies what they left alive) falls on whichever protocol goes first, so a pair is
  // one round with each first, and the figure is the median of the pairs' ratios: a neighbour's burst
  // on the shared machine, or a full collection, moves one pair, where it moved a sum of four rounds by
  // tens of percent.
  const pairs: Pairs = { classic: [], consumer: [] };
  for (let pair = 0; pair < PAIRS; pair++) {
    let classic = 0;
    let consumer = 0;
    await beforeRound();
    classic += await cpuOf(node, perRound, beats.classic);
    consumer += await cpuOf(node, perRound, beats.consumer);
    await beforeRound();
    consumer += await cpuOf(node, perRound, beats.consumer);
    classic += await cpuOf(node, perRound, beats.classic);
    pairs.classic.push(classic);
    pairs.consumer.push(consumer);
  }
  return pairs;
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
export async function heartbeatCpu(node: CohortProcess, where: string, others: number): Promise<void> {
  const perRound = scaled(4000, 400);
  await node.post('/v1/topics', { name: 'cg-steady', partitions: 10 });
  await node.post('/v1/topics', { name: 'classic-steady', partitions: 10 });
  const fleet = new ConsumerFleet(node.url, 'cg-steady', {
    topic: 'cg-steady',
    followPushes: true,
    rebalanceTimeoutMs: CONSUMER_REBALANCE_TIMEOUT_MS,
  });
  const classic = await classicMember(node, 'classic-steady', 10);
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
    const fresh = await heartbeatRounds(node, perRound, beats, async () => undefined);
    // The same node once it holds another group's members, their session timers armed, as a busy node does
    // (forming them also leaves the node's garbage collector as a burst of joins does).
    let loaded: Pairs | null = null;
    if (others > 0) {
      // The measured members heartbeat meanwhile, so their sessions outlive the forming of the others.
      // A keep-alive that fails (a node too busy to answer in time) is reported, not left to crash the run.
      let keepAliveError: unknown = null;
      const keepAlive = setInterval(
        () => void Promise.all([beats.classic(), beats.consumer()]).catch((error) => (keepAliveError ??= error)),
        5000,
      );
      try {
        held = await otherMembers(node, others);
      } finally {
        clearInterval(keepAlive);
      }
      if (keepAliveError) console.log(`  a measured member's keep-alive heartbeat failed meanwhile: ${keepAliveError}`);
      // One touch first, outside the rounds: the first heartbeats after forming are not those of a steady node.
      await held.touch();
      loaded = await attempt(`heartbeat CPU beside ${others} other members`, () =>
        heartbeatRounds(node, perRound, beats, held!.touch),
      );
    }
    // Per pair of rounds: 2 × perRound heartbeats of each protocol.
    const per1000 = (cpu: number[]) => ms((median(cpu) * 1000) / (2 * perRound));
    const ratios = (cpu: Pairs) => cpu.consumer.map((consumerCpu, i) => consumerCpu / cpu.classic[i]);
    const rows = (on: string, cpu: Pairs) => [
      [`classic Heartbeat, ${on}`, per1000(cpu.classic), '1.00x'],
      [`a steady member's ConsumerGroupHeartbeat, ${on}`, per1000(cpu.consumer), `${median(ratios(cpu)).toFixed(2)}x`],
    ];
    table(
      [
        `server CPU per 1,000 heartbeats (median of ${PAIRS} pairs of alternated rounds, ${perRound} heartbeats each, 8 in flight)`,
        'CPU',
        'vs classic Heartbeat (median of the pairs)',
      ],
      [...rows(where, fresh), ...(loaded ? rows(`node holding ${others} other consumer members`, loaded) : [])],
    );
    const inOrder = (on: string, cpu: Pairs) =>
      console.log(
        `  ${on}, each pair's consumer/classic CPU in order: ${ratios(cpu)
          .map((r) => r.toFixed(2))
          .join(' ')}`,
      );
    inOrder(where, fresh);
    if (loaded) inOrder(`beside ${others} other members`, loaded);
    console.log('  target: a ConsumerGroupHeartbeat costs no more than a classic Heartbeat (≤ 1.00x)');
  } finally {
    await held?.fleet.leave();
    await fleet.leave();
    classic.socket.disconnect();
  }
}
