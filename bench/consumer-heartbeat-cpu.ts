import { io, type Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { ConsumerFleet } from './harness/consumer-fleet';
import type { CohortProcess } from './harness/cohort-process';
import { processCpuMs } from './harness/process-stats';
import { scaled } from './harness/scale';
import { attempt } from './harness/section';
import { ms, ratio, table } from './harness/stats';

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

/** Server CPU (ms) of `half` classic Heartbeats and `half` steady ConsumerGroupHeartbeats, four times over (after a round of each unmeasured). */
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
  // Four alternating rounds each, so a neighbour's load on the shared machine falls on both alike and the
  // CPU clock's 10 ms ticks weigh little; which protocol goes first after `beforeRound` alternates too, so
  // neither always pays for the garbage that the round before left to collect.
  let consumerCpu = 0;
  let classicCpu = 0;
  for (let round = 0; round < 4; round++) {
    await beforeRound();
    if (round % 2 === 0) {
      classicCpu += await cpuOf(node, half, beats.classic);
      consumerCpu += await cpuOf(node, half, beats.consumer);
    } else {
      consumerCpu += await cpuOf(node, half, beats.consumer);
      classicCpu += await cpuOf(node, half, beats.classic);
    }
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
export async function heartbeatCpu(node: CohortProcess, where: string, others: number): Promise<void> {
  const half = scaled(10_000, 1000);
  const count = half * 4;
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
