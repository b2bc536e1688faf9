import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { ConsumerFleet } from './harness/consumer-fleet';
import type { CohortProcess } from './harness/cohort-process';
import { firstConnect } from './harness/first-connect';
import { processRunMs } from './harness/process-stats';
import { median, ms, percentile, table } from './harness/stats';
import { CONSUMER_REBALANCE_TIMEOUT_MS } from './consumer-heartbeat-cpu';
import { nodeLoopLagMs } from './large-group.bench';

/**
 * `npm run bench -- consumer-groups subscription [names N]`: what one member whose subscription names
 * N topics, nearly all of which do not exist, costs the node (a hostile client: N is bounded only by
 * MAX_PAYLOAD_BYTES, 1 MiB by default, about 100,000 short names). It sends ConsumerGroupHeartbeats
 * that each change its subscription (one name replaced), one at a time, then steady heartbeats; meanwhile
 * a member of another group heartbeats steadily, one at a time, and its round trips show what the node's
 * other groups wait.
 */

const EXISTING = 5;
const CHANGES = 20;
const STEADY = 1000;

async function socketOf(node: CohortProcess): Promise<Socket> {
  const socket = io(node.url, { transports: ['websocket'], reconnection: false, forceNew: true });
  await firstConnect(socket);
  return socket;
}

/** The subscription of the `version`th heartbeat: the topics that exist, `names` that do not, and one more that differs each time. */
function subscription(names: number, version: number): string[] {
  const list: string[] = [];
  for (let t = 0; t < EXISTING; t++) list.push(`cg-wide-${t}`);
  for (let i = 0; i < names; i++) list.push(`m${i}`);
  list.push(`v${version}`);
  return list;
}

export async function subscriptionCost(node: CohortProcess, names: number): Promise<void> {
  for (let t = 0; t < EXISTING; t++) await node.post('/v1/topics', { name: `cg-wide-${t}`, partitions: 4 });
  await node.post('/v1/topics', { name: 'cg-neighbour', partitions: 4 });
  const neighbours = new ConsumerFleet(node.url, 'cg-neighbour', {
    topic: 'cg-neighbour',
    followPushes: true,
    rebalanceTimeoutMs: CONSUMER_REBALANCE_TIMEOUT_MS,
  });
  const socket = await socketOf(node);
  try {
    const [neighbour] = await neighbours.connect(1);
    await neighbours.converge(4, 0, 30_000, () => neighbour.start());
    neighbour.pause();
    const memberId = randomUUID();
    let memberEpoch = 0;
    const send = async (request: Omit<P.ConsumerGroupHeartbeatRequest, 'groupId' | 'memberId' | 'memberEpoch'>) => {
      const answer = (await socket.timeout(120_000).emitWithAck('ConsumerGroupHeartbeat', {
        groupId: 'cg-wide',
        memberId,
        memberEpoch,
        ...request,
      })) as P.ConsumerGroupHeartbeatResponse;
      if (answer.errorCode !== 0) throw new Error(`a heartbeat failed (error ${answer.errorCode})`);
      memberEpoch = answer.memberEpoch;
    };
    const lists = Array.from({ length: CHANGES + 1 }, (_, version) => subscription(names, version));
    const bytes = JSON.stringify(lists[0]).length;
    await send({
      rebalanceTimeoutMs: CONSUMER_REBALANCE_TIMEOUT_MS,
      subscribedTopicNames: lists[0],
      topicPartitions: [],
    });

    // The neighbour heartbeats one at a time until told to stop, each round trip kept.
    const trips: number[] = [];
    let running = true;
    const neighbourLoop = (async () => {
      while (running) {
        const started = performance.now();
        const answer = await neighbour.steadyHeartbeat();
        if (answer.errorCode !== 0) throw new Error(`the neighbour's heartbeat failed (error ${answer.errorCode})`);
        trips.push(performance.now() - started);
      }
    })();
    await nodeLoopLagMs(node);
    const cpu: number[] = [];
    const roundTrips: number[] = [];
    for (let version = 1; version <= CHANGES; version++) {
      const before = processRunMs(node.pid) ?? Number.NaN;
      const started = performance.now();
      await send({ subscribedTopicNames: lists[version] });
      roundTrips.push(performance.now() - started);
      cpu.push((processRunMs(node.pid) ?? Number.NaN) - before);
    }
    const loopLag = await nodeLoopLagMs(node);
    running = false;
    await neighbourLoop;
    const steadyBefore = processRunMs(node.pid) ?? Number.NaN;
    for (let i = 0; i < STEADY; i++) await send({});
    const steadyCpu = (processRunMs(node.pid) ?? Number.NaN) - steadyBefore;
    const sorted = [...trips].sort((a, b) => a - b);
    table(
      [
        `one member subscribing to ${names.toLocaleString('en-US')} names (${EXISTING} exist; ${Math.round(bytes / 1024)} KiB of names)`,
        'node CPU',
        'round trip',
      ],
      [
        [`a heartbeat that changes its subscription (median of ${CHANGES})`, ms(median(cpu)), ms(median(roundTrips))],
        [`its steady heartbeat (per heartbeat, ${STEADY} in a row)`, ms(steadyCpu / STEADY), ''],
        [
          `meanwhile, another group's steady heartbeat (${trips.length}: median, p99, max)`,
          '',
          `${ms(median(trips))}, ${ms(percentile(sorted, 99))}, ${ms(sorted[sorted.length - 1])}`,
        ],
        ['meanwhile, the node event loop lag (max)', '', ms(loopLag)],
      ],
    );
  } finally {
    await neighbours.leave();
    socket.disconnect();
  }
}
