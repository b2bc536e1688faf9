/**
 * A child process of the SDK group benchmark (bench/client-group.bench.ts): runs `count` SDK members,
 * each with its own CohortClient (its own socket, as separate consumers have), and reports to the
 * parent over IPC: a status whenever something changes, and on request every assigned / revoked /
 * lost event with its wall time, so the parent can see when the whole group settled and which
 * partitions stopped being processed on the way.
 */
import { CohortClient, type CohortMember, type ConsumerGroupMember, type TopicPartitions } from '@cohort/client';
import { oncePerTurn } from './harness/once-per-turn';

export interface StartCommand {
  type: 'start';
  url: string;
  groupId: string;
  topic: string;
  count: number;
  assignor: string;
}

export interface WorkerStatus {
  type: 'status';
  /** Members in state `stable`. */
  stable: number;
  /** Lowest and highest generation among the stable members. */
  minGeneration: number;
  maxGeneration: number;
  /** Partitions held by all members of this process. */
  held: number;
  crashed: number;
}

export interface PartitionEvent {
  kind: 'assigned' | 'revoked' | 'lost';
  at: number;
  partitions: number[];
}

/** Wall time with sub-millisecond resolution, comparable across processes. */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/** The assignor name that asks for Kafka 4's consumer protocol (KIP-848, the coordinator's `uniform` assignor) instead. */
export const CONSUMER_PROTOCOL = 'consumer-protocol';

/** A member of the benchmark: `assignor` names a classic one, or CONSUMER_PROTOCOL. */
export function benchMember(client: CohortClient, groupId: string, topic: string, assignor: string): BenchMember {
  if (assignor === CONSUMER_PROTOCOL)
    return client.member({
      groupId,
      groupProtocol: 'consumer',
      topics: [topic],
      rebalanceTimeoutMs: 120_000,
      autoCommit: false,
    });
  return client.member(benchMemberOptions(groupId, topic, assignor));
}

export type BenchMember = CohortMember | ConsumerGroupMember;

/** The SDK member options the benchmark uses in every process (the newcomer included). */
export function benchMemberOptions(groupId: string, topic: string, assignor: string) {
  return {
    groupId,
    topics: [topic],
    assignors: [assignor],
    sessionTimeoutMs: 60_000,
    rebalanceTimeoutMs: 120_000,
    heartbeatIntervalMs: 3_000,
    autoCommit: false as const,
  };
}

/** Records a member's listener events (numbers only: one topic). */
export function recordEvents(member: BenchMember, events: PartitionEvent[], changed: () => void): void {
  const flat = (partitions: TopicPartitions[]) => partitions.flatMap((tp) => tp.partitions);
  member.on(
    'assigned',
    (e) => void (events.push({ kind: 'assigned', at: wallNow(), partitions: flat(e.partitions) }), changed()),
  );
  member.on(
    'revoked',
    (e) => void (events.push({ kind: 'revoked', at: wallNow(), partitions: flat(e.partitions) }), changed()),
  );
  member.on(
    'lost',
    (e) => void (events.push({ kind: 'lost', at: wallNow(), partitions: flat(e.partitions) }), changed()),
  );
}

function main(): void {
  const clients: CohortClient[] = [];
  const members: BenchMember[] = [];
  const events: PartitionEvent[] = [];
  let crashed = 0;
  const send = (message: unknown) => process.send?.(message);
  const status = (): WorkerStatus => {
    const stable = members.filter((m) => m.state === 'stable');
    const generations = stable.map((m) => m.generationId);
    return {
      type: 'status',
      stable: stable.length,
      minGeneration: generations.length ? Math.min(...generations) : -1,
      maxGeneration: generations.length ? Math.max(...generations) : -1,
      held: members.reduce((sum, m) => sum + m.assignment.reduce((n, tp) => n + tp.partitions.length, 0), 0),
      crashed,
    };
  };
  const changed = oncePerTurn(() => send(status()));
  process.on('message', (message: StartCommand | { type: 'report'; since: number } | { type: 'stop' }) => {
    if (message.type === 'start') {
      for (let i = 0; i < message.count; i++) {
        const client = new CohortClient({ urls: [message.url], clientId: `bench-${process.pid}-${i}` });
        const member = benchMember(client, message.groupId, message.topic, message.assignor);
        recordEvents(member, events, changed);
        member.on('joined', changed);
        member.on('rebalancing', changed);
        member.on('crash', () => {
          crashed++;
          changed();
        });
        clients.push(client);
        members.push(member);
        member.start().catch(() => undefined);
      }
      changed();
    } else if (message.type === 'report') {
      send({ type: 'report', events: events.filter((e) => e.at >= message.since) });
    } else if (message.type === 'stop') {
      void Promise.all(clients.map((c) => c.close().catch(() => undefined))).then(() => process.exit(0));
    }
  });
  // A heartbeat of the status too: a member's state can change without a listener event (e.g. joining → stable).
  setInterval(changed, 25).unref();
  send({ type: 'ready' });
}

if (require.main === module) main();
