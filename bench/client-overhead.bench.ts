import { CohortClient, type CohortMember, type SocketFactory } from '@cohort/client';
import { socketIoFactory } from '@cohort/client/transport/socket-like';
import { eventually, GroupMember, settledTogether } from '../test/support/group-member';
import { CohortProcess } from './harness/cohort-process';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { perSecond, ratio, table } from './harness/stats';

/**
 * Issue 8, benchmark 2: the SDK's own cost. One process of members against one node, each member on
 * its own socket: heartbeats per second (the SDK's heartbeat loop with a 1 ms interval, so one beat is
 * always in flight per member) and commits per second (a closed loop of markProcessed + commit per
 * member), beside the raw socket.io-client harness sending the same events from the same process in
 * the same run. Client CPU per request is the SDK's overhead made visible.
 */

export interface Throughput {
  perSecond: number;
  /** Microseconds of this process's CPU per successful request. */
  clientCpuUs: number;
  errors: number;
}

/** Counts successful acks of one event on every socket the SDK makes: measurement only, no behaviour. */
function countingFactory(event: string, counter: { ok: number; errors: number }): SocketFactory {
  return (url, options) => {
    const socket = socketIoFactory(url, options);
    const emit = socket.emit.bind(socket);
    return Object.assign(socket, {
      emit: (name: string, payload: unknown, ack: (response: unknown) => void) =>
        emit(name, payload, (response: unknown) => {
          if (name === event) {
            if ((response as { errorCode?: number })?.errorCode === 0) counter.ok++;
            else counter.errors++;
          }
          ack(response);
        }),
    });
  };
}

async function measure(
  durationMs: number,
  counter: { ok: number; errors: number },
  run?: (until: number) => Promise<void>,
): Promise<Throughput> {
  counter.ok = 0;
  counter.errors = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  if (run) await run(Date.now() + durationMs);
  else await new Promise((resolve) => setTimeout(resolve, durationMs));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    perSecond: counter.ok / seconds,
    clientCpuUs: (used.user + used.system) / Math.max(1, counter.ok),
    errors: counter.errors,
  };
}

async function sdkMembers(
  node: CohortProcess,
  group: string,
  count: number,
  counter: { ok: number; errors: number },
  event: string,
  heartbeatIntervalMs: number,
) {
  await node.post('/v1/topics', { name: group, partitions: count });
  const clients = Array.from(
    { length: count },
    (_, i) =>
      new CohortClient({ urls: [node.url], clientId: `sdk-${i}`, socketFactory: countingFactory(event, counter) }),
  );
  const members: CohortMember[] = clients.map((client) =>
    client.member({
      groupId: group,
      topics: [group],
      sessionTimeoutMs: 30_000,
      heartbeatIntervalMs,
      autoCommit: false,
    }),
  );
  await Promise.all(members.map((m) => m.start()));
  await eventually(
    () =>
      members.every(
        (m) => m.state === 'stable' && m.generationId === members[0].generationId && m.assignment.length > 0,
      ),
    'the SDK group to settle',
    120_000,
  );
  return { members, close: () => Promise.all(clients.map((c) => c.close())) };
}

async function rawMembers(node: CohortProcess, group: string, count: number) {
  await node.post('/v1/topics', { name: group, partitions: count });
  const members = await Promise.all(
    Array.from({ length: count }, () =>
      GroupMember.connect(node.url, group, { topics: [group], sessionTimeoutMs: 30_000, heartbeatIntervalMs: 3_000 }),
    ),
  );
  members.forEach((m) => m.start());
  await eventually(
    () => settledTogether(members) && members.every((m) => m.held().length > 0),
    'the raw group to settle',
    120_000,
  );
  return { members, close: () => Promise.all(members.map((m) => m.vanish())) };
}

export async function heartbeatOverhead(
  node: CohortProcess,
  count: number,
  durationMs: number,
): Promise<{ sdk: Throughput; raw: Throughput }> {
  const counter = { ok: 0, errors: 0 };
  const raw = await rawMembers(node, 'overhead-raw-heartbeat', count);
  const rawResult = await measure(durationMs, counter, async (until) => {
    await Promise.all(
      raw.members.map(async (member) => {
        while (Date.now() < until) {
          if ((await member.heartbeat()).errorCode === 0) counter.ok++;
          else counter.errors++;
        }
      }),
    );
  });
  await raw.close();
  const sdk = await sdkMembers(node, 'overhead-sdk-heartbeat', count, counter, 'Heartbeat', 1);
  const sdkResult = await measure(durationMs, counter);
  await sdk.close();
  return { sdk: sdkResult, raw: rawResult };
}

export async function commitOverhead(
  node: CohortProcess,
  count: number,
  durationMs: number,
): Promise<{ sdk: Throughput; raw: Throughput }> {
  const counter = { ok: 0, errors: 0 };
  const raw = await rawMembers(node, 'overhead-raw-commit', count);
  const rawResult = await measure(durationMs, counter, async (until) => {
    await Promise.all(
      raw.members.map(async (member) => {
        const { topic, partitions } = member.assignment!.partitions[0];
        const partition = partitions[0];
        for (let offset = 1; Date.now() < until; offset++) {
          const response = await member.commit([{ topic, partition, offset }]);
          if (response.errorCode === 0 && response.topics.every((t) => t.partitions.every((p) => p.errorCode === 0)))
            counter.ok++;
          else counter.errors++;
        }
      }),
    );
  });
  await raw.close();
  const sdk = await sdkMembers(node, 'overhead-sdk-commit', count, counter, 'OffsetCommit', 3_000);
  const sdkResult = await measure(durationMs, counter, async (until) => {
    await Promise.all(
      sdk.members.map(async (member) => {
        const { topic, partitions } = member.assignment[0];
        for (let offset = 1; Date.now() < until; offset++) {
          member.markProcessed({ topic, partition: partitions[0], offset });
          await member.commit();
        }
      }),
    );
  });
  await sdk.close();
  return { sdk: sdkResult, raw: rawResult };
}

/** Section `sdk-overhead`: heartbeats and commits per second, SDK against the raw harness. */
export const sdkOverheadSection: BenchSection = {
  name: 'sdk-overhead',
  summary: 'heartbeats and commits per second of 50 @cohort/client members; vs the raw socket.io harness',
  needsBuild: true,
  run: () => sdkOverhead(),
};

async function sdkOverhead(): Promise<void> {
  const count = scaled(50, 2);
  const seconds = 5;
  console.log(
    `SDK overhead: ${count} members in one process (own socket each), closed loops for ${seconds} s, against one embedded node; baseline: the raw socket.io-client harness sending the same events`,
  );
  const node = await CohortProcess.start({ GROUP_INITIAL_REBALANCE_DELAY_MS: '0' });
  try {
    const heartbeats = await attempt('heartbeats', () => heartbeatOverhead(node, count, seconds * 1000));
    const commits = await attempt('commits', () => commitOverhead(node, count, seconds * 1000));
    const row = (what: string, r: { sdk: Throughput; raw: Throughput } | null): string[] =>
      r
        ? [
            what,
            perSecond(r.sdk.perSecond),
            perSecond(r.raw.perSecond),
            ratio(r.sdk.perSecond, r.raw.perSecond),
            `${r.sdk.clientCpuUs.toFixed(0)} µs / ${r.raw.clientCpuUs.toFixed(0)} µs`,
            `${r.sdk.errors} / ${r.raw.errors}`,
          ]
        : [what, 'n/a', 'n/a', 'n/a', 'n/a', 'n/a'];
    table(
      ['event', 'SDK', 'raw harness', 'SDK vs raw', 'client CPU per request: SDK / raw', 'errors: SDK / raw'],
      [row('Heartbeat', heartbeats), row('OffsetCommit', commits)],
    );
  } finally {
    await node.dispose();
  }
}
