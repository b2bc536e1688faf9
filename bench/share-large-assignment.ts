import { CohortProcess } from './harness/cohort-process';
import { ShareWorker } from './harness/share-worker';
import { median, ms, table } from './harness/stats';

/** How long the acquires of the member assigned every partition may take before the row gives up. */
const CALL_TIMEOUT_MS = 600_000;
/** The end offset reported on each of the few partitions that have offsets. */
const REPORTED_END = 5;
/** The most partitions REST creates a topic with: a larger assignment spans several topics. */
const TOPIC_PARTITIONS = 100_000;

/**
 * One member assigned `count` partitions (500,000 at full scale: five topics of 100,000), of which
 * producers reported three (the first, one in the middle and the last): how long its join takes, its first and second
 * ShareAcquire, and until it has leased from all three; and the longest round trip meanwhile of another
 * group's member acquiring and acknowledging in a closed loop, i.e. how long the node's event loop
 * stalled for every other group. The node does not fsync each write (LOG_FLUSH_POLICY=replicated), so
 * the round trips are the event loop's, not the disk's. Run with BENCH_DIST for a build before and after.
 */
export async function largeAssignment(count: number, env: Record<string, string>): Promise<void> {
  const node = await CohortProcess.start({ ...env, LOG_FLUSH_POLICY: 'replicated' });
  try {
    const topics = Array.from({ length: Math.ceil(count / TOPIC_PARTITIONS) }, (_, i) => `wide-${i}`);
    for (const [i, name] of topics.entries())
      await node.post('/v1/topics', { name, partitions: Math.min(TOPIC_PARTITIONS, count - i * TOPIC_PARTITIONS) });
    // The first partition, one in the middle and the last, each reported on its topic.
    const reported = [0, Math.floor(count / 2), count - 1].map((p) => ({
      topic: topics[Math.floor(p / TOPIC_PARTITIONS)],
      partition: p % TOPIC_PARTITIONS,
    }));
    for (const { topic, partition } of reported)
      await node.post(
        `/v1/topics/${topic}/end-offsets`,
        { partitions: [{ partition, endOffset: REPORTED_END }] },
        'PUT',
      );
    await node.post('/v1/topics', { name: 'probe', partitions: 1 });
    await node.post(
      '/v1/topics/probe/end-offsets',
      { partitions: [{ partition: 0, endOffset: 1_000_000_000 }] },
      'PUT',
    );
    const probe = await ShareWorker.join(node.url, 'probe', ['probe']);
    const trips = new Probe(probe);
    const loop = trips.run();
    try {
      const timed = async <T>(run: () => Promise<T>): Promise<{ value: T; ms: number; worstProbeMs: number }> => {
        // A round trip stalled by the step before is that step's: the probe runs freely again first.
        await trips.fresh();
        trips.reset();
        const started = performance.now();
        const value = await run();
        return { value, ms: performance.now() - started, worstProbeMs: trips.worst() };
      };
      const join = await timed(() => ShareWorker.join(node.url, 'wide', topics));
      const worker = join.value;
      const first = await timed(() => worker.acquire(100, 0, CALL_TIMEOUT_MS));
      const second = await timed(() => worker.acquire(100, 0, CALL_TIMEOUT_MS));
      const leased = new Set([...first.value, ...second.value].map((l) => `${l.topic}-${l.partition}`));
      const rest = await timed(async () => {
        while (leased.size < reported.length)
          for (const l of await worker.acquire(100, 1000, CALL_TIMEOUT_MS)) leased.add(`${l.topic}-${l.partition}`);
      });
      const untilAll = first.ms + second.ms + rest.ms;
      console.log(
        `  one member assigned ${count.toLocaleString('en-US')} partitions (${topics.length} topics), ${reported.length} of them reported (end ${REPORTED_END}); another group's member acquires and acknowledges in a closed loop meanwhile (${trips.count} round trips, median ${ms(trips.median())})`,
      );
      table(
        ['large assignment', 'took', "another group's longest round trip"],
        [
          ['join (ShareGroupHeartbeat)', ms(join.ms), ms(join.worstProbeMs)],
          ['first ShareAcquire', ms(first.ms), ms(first.worstProbeMs)],
          ['second ShareAcquire', ms(second.ms), ms(second.worstProbeMs)],
          [
            `until leased from all ${reported.length}`,
            ms(untilAll),
            ms(Math.max(first.worstProbeMs, second.worstProbeMs, rest.worstProbeMs)),
          ],
        ],
      );
      await worker.leave();
    } finally {
      trips.stop();
      await loop;
      await probe.leave();
    }
  } finally {
    await node.dispose();
  }
}

/** A member of another group leasing one offset and acknowledging it in a loop, timing each call. */
export class Probe {
  private running = true;
  private longest = 0;
  private readonly all: number[] = [];

  constructor(private readonly worker: ShareWorker) {}

  async run(): Promise<void> {
    while (this.running) {
      const leases = await this.timed(() => this.worker.acquire(1, 0, CALL_TIMEOUT_MS));
      if (leases.length > 0) await this.timed(() => this.worker.acknowledge(leases));
    }
  }

  reset(): void {
    this.longest = 0;
  }

  /** Once two round trips started after this call have ended. */
  async fresh(): Promise<void> {
    const target = this.all.length + 3;
    while (this.running && this.all.length < target) await new Promise((resume) => setTimeout(resume, 1));
  }

  worst(): number {
    return this.longest;
  }

  get count(): number {
    return this.all.length;
  }

  median(): number {
    return median(this.all);
  }

  stop(): void {
    this.running = false;
  }

  private async timed<T>(call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const value = await call();
    const took = performance.now() - started;
    this.longest = Math.max(this.longest, took);
    this.all.push(took);
    return value;
  }
}
