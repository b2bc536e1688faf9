import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { CohortClient } from '@cohort/client';
import {
  benchMember,
  CONSUMER_PROTOCOL,
  type PartitionEvent,
  recordEvents,
  type StartCommand,
  wallNow,
  type WorkerStatus,
} from './client-members-worker';
import { CohortProcess } from './harness/cohort-process';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { ms, processes, ratio, table } from './harness/stats';
import { stopWorker } from './harness/stop-worker';

/**
 * Issue 8, benchmark 1: a large group of SDK members spread over a few child processes against one
 * node. Measures the time to form the group, then the time from one more member joining until every
 * member holds its assignment of the final generation, and which partitions stopped being processed
 * on the way (revoked or lost by someone) and for how long, eager (sticky) against cooperative
 * (cooperative-sticky): the same stickiness, the two rebalance protocols; and Kafka 4's consumer protocol
 * (KIP-848, the coordinator's `uniform` assignor), where there is no generation shared by the group: there
 * the join is done when every member is stable (its target owned and acknowledged) and every partition is
 * held once, the newcomer holding some.
 */

export interface LargeGroupResult {
  members: number;
  partitions: number;
  formMs: number;
  joinMs: number;
  /** Distinct partitions revoked or lost during the join. */
  stopped: number;
  /** Sum and maximum over stopped partitions of the time until someone was assigned it again. */
  pausedPartitionMs: number;
  maxPauseMs: number;
}

class Worker {
  status: WorkerStatus | null = null;
  private readonly child: ChildProcess;
  private replies: ((events: PartitionEvent[]) => void)[] = [];
  readonly ready: Promise<void>;

  constructor(onStatus: () => void) {
    this.child = fork(join(__dirname, 'client-members-worker.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve) => {
      this.child.on('message', (message: { type: string; events?: PartitionEvent[] }) => {
        if (message.type === 'ready') resolve();
        else if (message.type === 'status') {
          this.status = message as unknown as WorkerStatus;
          onStatus();
        } else if (message.type === 'report') this.replies.shift()?.(message.events ?? []);
      });
    });
  }

  start(command: StartCommand): void {
    this.child.send(command);
  }

  report(since: number): Promise<PartitionEvent[]> {
    return new Promise((resolve) => {
      this.replies.push(resolve);
      this.child.send({ type: 'report', since });
    });
  }

  stop(): Promise<void> {
    return stopWorker(this.child);
  }
}

/** Resolves when `condition` holds, checked on every status; rejects after `timeoutMs`. */
function when(watchers: Set<() => void>, condition: () => boolean, what: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      watchers.delete(check);
      reject(new Error(`${what}: not within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const check = (): void => {
      if (!condition()) return;
      clearTimeout(timer);
      watchers.delete(check);
      resolve(wallNow());
    };
    watchers.add(check);
    check();
  });
}

/** What stopped being processed after `since`: partitions revoked or lost, and until when. */
export function stoppedPartitions(
  events: PartitionEvent[],
  since: number,
): { stopped: number; pausedPartitionMs: number; maxPauseMs: number } {
  const ordered = events.filter((e) => e.at >= since).sort((a, b) => a.at - b.at);
  const stoppedAt = new Map<number, number>();
  const pauses: number[] = [];
  const seen = new Set<number>();
  for (const event of ordered) {
    for (const partition of event.partitions) {
      if (event.kind === 'assigned') {
        const from = stoppedAt.get(partition);
        if (from !== undefined) pauses.push(event.at - from);
        stoppedAt.delete(partition);
      } else {
        seen.add(partition);
        stoppedAt.set(partition, event.at);
      }
    }
  }
  return {
    stopped: seen.size,
    pausedPartitionMs: pauses.reduce((a, b) => a + b, 0),
    maxPauseMs: pauses.length ? Math.max(...pauses) : 0,
  };
}

export async function sdkLargeGroup(
  node: CohortProcess,
  size: number,
  protocol: 'eager' | 'cooperative' | 'consumer',
): Promise<LargeGroupResult> {
  const assignor =
    protocol === 'eager' ? 'sticky' : protocol === 'cooperative' ? 'cooperative-sticky' : CONSUMER_PROTOCOL;
  // A consumer group's members move to a new epoch one by one, each at its own next heartbeat.
  const oneGeneration = protocol !== 'consumer';
  const topic = `sdk-${protocol}-${size}`;
  const partitions = size * 2;
  await node.post('/v1/topics', { name: topic, partitions });
  const watchers = new Set<() => void>();
  const notify = () => watchers.forEach((check) => check());
  const processes = Math.min(4, Math.ceil(size / 50));
  const workers = Array.from({ length: processes }, () => new Worker(notify));
  const newcomerClient = new CohortClient({ urls: [node.url], clientId: 'bench-newcomer' });
  try {
    await Promise.all(workers.map((w) => w.ready));
    const formStarted = wallNow();
    workers.forEach((worker, i) => {
      const count = Math.floor(size / processes) + (i < size % processes ? 1 : 0);
      worker.start({ type: 'start', url: node.url, groupId: topic, topic, count, assignor });
    });
    const statuses = () => workers.map((w) => w.status);
    const settled = (extraHeld: number, generationAbove: number): boolean => {
      const all = statuses();
      if (all.some((s) => s === null || s.crashed > 0)) return false;
      const generation = all[0]!.minGeneration;
      return (
        (!oneGeneration || generation > generationAbove) &&
        all.every((s) => !oneGeneration || (s!.minGeneration === generation && s!.maxGeneration === generation)) &&
        all.reduce((n, s) => n + s!.stable, 0) === size &&
        all.reduce((n, s) => n + s!.held, 0) + extraHeld === partitions
      );
    };
    const formed = await when(watchers, () => settled(0, 0), `forming ${size} members`, 600_000);
    const generation = workers[0].status!.minGeneration;

    const newcomer = benchMember(newcomerClient, topic, topic, assignor);
    const newcomerEvents: PartitionEvent[] = [];
    recordEvents(newcomer, newcomerEvents, notify);
    const interval = setInterval(notify, 25);
    const joinStarted = wallNow();
    // A newcomer that cannot start (refused connection, say) fails the measurement at once, not at the timeout.
    const startFailed = newcomer.start().then(
      () => new Promise<never>(() => undefined),
      (error: unknown) =>
        Promise.reject(
          new Error(`the newcomer could not start: ${error instanceof Error ? error.message : String(error)}`),
        ),
    );
    const held = () => newcomer.assignment.reduce((n, tp) => n + tp.partitions.length, 0);
    const joined = await Promise.race([
      when(
        watchers,
        () =>
          newcomer.state === 'stable' &&
          held() > 0 &&
          settled(held(), generation) &&
          (!oneGeneration || workers[0].status!.minGeneration === newcomer.generationId),
        'the newcomer joining',
        300_000,
      ),
      startFailed,
    ]);
    clearInterval(interval);
    const events = [...newcomerEvents, ...(await Promise.all(workers.map((w) => w.report(joinStarted)))).flat()];
    return {
      members: size,
      partitions,
      formMs: formed - formStarted,
      joinMs: joined - joinStarted,
      ...stoppedPartitions(events, joinStarted),
    };
  } finally {
    await newcomerClient.close().catch(() => undefined);
    await Promise.all(workers.map((w) => w.stop()));
  }
}

/** Section `sdk-group`: the large SDK group, eager against cooperative, on one embedded node. */
export const sdkGroupSection: BenchSection = {
  name: 'sdk-group',
  summary:
    "1,000 @cohort/client members form a group, one more joins: cooperative-sticky vs eager sticky vs Kafka 4's consumer protocol",
  needsBuild: true,
  run: () => sdkGroup(),
};

async function sdkGroup(): Promise<void> {
  const size = scaled(1000, 10);
  console.log(
    `SDK group: ${size} @cohort/client members (own socket each, over ${processes(Math.min(4, Math.ceil(size / 50)))}), ${size * 2} partitions, one embedded node; then one more member joins`,
  );
  console.log(
    '   (forming includes GROUP_INITIAL_REBALANCE_DELAY_MS, 3 s by default; "stopped" = partitions revoked or lost by someone during the join)',
  );
  // Every member has its own socket, all from 127.0.0.1: the per-address limit (1,000 by default) must let the newcomer in too.
  const node = await CohortProcess.start({ MAX_CONNECTIONS_PER_IP: String(2 * size + 10) });
  try {
    const eager = await attempt('eager (sticky)', () => sdkLargeGroup(node, size, 'eager'));
    const cooperative = await attempt('cooperative (cooperative-sticky)', () =>
      sdkLargeGroup(node, size, 'cooperative'),
    );
    const consumer = await attempt("Kafka 4's consumer protocol (uniform)", () =>
      sdkLargeGroup(node, size, 'consumer'),
    );
    const row = (name: string, r: LargeGroupResult | null): string[] =>
      r
        ? [
            name,
            ms(r.formMs),
            ms(r.joinMs),
            `${r.stopped} of ${r.partitions}`,
            ms(r.maxPauseMs),
            `${(r.pausedPartitionMs / 1000).toFixed(1)} s`,
          ]
        : [name, 'n/a', 'n/a', 'n/a', 'n/a', 'n/a'];
    table(
      [
        'protocol',
        'form group',
        '+1 member → all hold new assignment',
        'partitions stopped',
        'longest stop',
        'partition-seconds stopped',
      ],
      [
        row('eager (sticky)', eager),
        row('cooperative (cooperative-sticky)', cooperative),
        row('consumer protocol (KIP-848, uniform)', consumer),
      ],
    );
    if (eager && cooperative) {
      const share = (a: number, b: number) => (b > 0 ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
      console.log(
        `   cooperative vs eager: join time ${ratio(cooperative.joinMs, eager.joinMs)}; partitions stopped ${share(cooperative.stopped, eager.stopped)} of eager's, partition-seconds stopped ${share(cooperative.pausedPartitionMs, eager.pausedPartitionMs)}`,
      );
    }
    if (consumer && cooperative) {
      const share = (a: number, b: number) => (b > 0 ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');
      console.log(
        `   consumer protocol vs cooperative: form ${ratio(consumer.formMs, cooperative.formMs)}, join time ${ratio(consumer.joinMs, cooperative.joinMs)}; partitions stopped ${share(consumer.stopped, cooperative.stopped)} of cooperative's, partition-seconds stopped ${share(consumer.pausedPartitionMs, cooperative.pausedPartitionMs)}`,
      );
    }
  } finally {
    await node.dispose();
  }
}
