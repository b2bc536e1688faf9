import { CohortProcess } from './harness/cohort-process';
import { ShareWorker } from './harness/share-worker';
import { ms, table } from './harness/stats';
import { Probe } from './share-large-assignment';

/** How long a join may take before the row gives up (a build that runs the assignor once per join takes minutes). */
const JOIN_TIMEOUT_MS = 600_000;

/**
 * `size` share-group workers (1,000 by default: GROUP_SHARE_MAX_SIZE's largest value, as in Kafka)
 * connected first, then joining one group at once, as a fleet of workers restarting does: how long
 * until every one is answered, and the longest round trip meanwhile of another group's member acquiring
 * and acknowledging in a closed loop (how long the node stalled for everyone else). The topic has two
 * partitions per worker. Run with BENCH_DIST for a build before and after.
 */
export async function shareForming(size: number, env: Record<string, string>): Promise<void> {
  const node = await CohortProcess.start({
    ...env,
    LOG_FLUSH_POLICY: 'replicated',
    GROUP_SHARE_MAX_SIZE: String(size),
    MAX_CONNECTIONS_PER_IP: String(size + 100),
  });
  try {
    await node.post('/v1/topics', { name: 'forming', partitions: size * 2 });
    await node.post('/v1/topics', { name: 'probe', partitions: 1 });
    await node.post(
      '/v1/topics/probe/end-offsets',
      { partitions: [{ partition: 0, endOffset: 1_000_000_000 }] },
      'PUT',
    );
    const probe = new Probe(await ShareWorker.join(node.url, 'probe', ['probe']));
    const loop = probe.run();
    const workers: ShareWorker[] = [];
    try {
      for (let i = 0; i < size; i += 100)
        workers.push(
          ...(await Promise.all(
            Array.from({ length: Math.min(100, size - i) }, () => ShareWorker.open(node.url, 'forming')),
          )),
        );
      await probe.fresh();
      probe.reset();
      const started = performance.now();
      await Promise.all(workers.map((worker) => worker.joinNow(['forming'], JOIN_TIMEOUT_MS)));
      const took = performance.now() - started;
      console.log(
        `  ${size} workers connected first, then joining one share group at once (topic of ${size * 2} partitions); another group's member acquires and acknowledges in a closed loop meanwhile`,
      );
      table(
        ['share group forming', 'every worker answered', "another group's longest round trip"],
        [[`${size} workers join at once`, ms(took), ms(probe.worst())]],
      );
    } finally {
      probe.stop();
      await loop;
      await Promise.all(workers.map((worker) => worker.leave()));
    }
  } finally {
    await node.dispose();
  }
}
