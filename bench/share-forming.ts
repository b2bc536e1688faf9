import { CohortProcess } from './harness/cohort-process';
import { ShareWorker } from './harness/share-worker';
import { scaled } from './harness/scale';
import { ms, table } from './harness/stats';
import { Probe } from './share-large-assignment';

/** How long a join may take before the row gives up (a build that runs the assignor once per join takes minutes). */
const JOIN_TIMEOUT_MS = 600_000;
/** The share session timeout the node runs with (the smallest it allows here). */
const SESSION_TIMEOUT_MS = 6000;
/** How long the cut-off workers may take to be fenced before the row gives up. */
const FENCE_WAIT_MS = 300_000;

/** Until the group has `members` members with its target at its epoch (true), or FENCE_WAIT_MS passed. */
async function untilMembers(node: CohortProcess, members: number): Promise<boolean> {
  const deadline = performance.now() + FENCE_WAIT_MS;
  while (performance.now() < deadline) {
    const group = (await (await fetch(`${node.url}/v1/groups/forming`)).json()) as {
      members?: unknown[];
      groupEpoch?: number;
      assignmentEpoch?: number;
    };
    if (group.members?.length === members && group.groupEpoch === group.assignmentEpoch) return true;
    await new Promise((resume) => setTimeout(resume, 20));
  }
  return false;
}

/**
 * `workers` share-group workers (1,000 by default, scaled by BENCH_SCALE: GROUP_SHARE_MAX_SIZE's largest value, as in Kafka)
 * connected first, then joining one group at once, as a fleet of workers restarting does: how long
 * until every one is answered, and the longest round trip meanwhile of another group's member acquiring
 * and acknowledging in a closed loop (how long the node stalled for everyone else). The topic has two
 * partitions per worker. Run with BENCH_DIST for a build before and after.
 */
export async function shareForming(workers: string | undefined, env: Record<string, string>): Promise<void> {
  const size = workers === undefined ? scaled(1000, 10) : Number(workers);
  if (!Number.isInteger(size) || size < 1 || size > 1000)
    throw new Error(`workers must be an integer in [1, 1000] (GROUP_SHARE_MAX_SIZE's range), not "${workers}"`);
  const node = await CohortProcess.start({
    ...env,
    LOG_FLUSH_POLICY: 'replicated',
    GROUP_SHARE_MAX_SIZE: String(size),
    MAX_CONNECTIONS_PER_IP: String(size + 100),
    // Sessions short enough that the cut-off half is fenced within the run.
    GROUP_SHARE_MIN_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    GROUP_SHARE_SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
    GROUP_SHARE_MIN_HEARTBEAT_INTERVAL_MS: '1000',
    GROUP_SHARE_HEARTBEAT_INTERVAL_MS: '2000',
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
      const formingWorst = probe.worst();
      // Half the workers are cut off (their sockets dropped, no leave): their sessions end, about together.
      const cut = workers.splice(0, Math.floor(size / 2));
      await probe.fresh();
      probe.reset();
      const cutAt = performance.now();
      for (const worker of cut) worker.kill();
      const fenced = await untilMembers(node, size - cut.length);
      const fencedMs = performance.now() - cutAt;
      console.log(
        `  ${size} workers connected first, then joining one share group at once (topic of ${size * 2} partitions); then ${cut.length} of them cut off, fenced when their ${ms(SESSION_TIMEOUT_MS)} sessions end; another group's member acquires and acknowledges in a closed loop meanwhile`,
      );
      table(
        ['share group', 'took', "another group's longest round trip"],
        [
          [`${size} workers join at once → every one answered`, ms(took), ms(formingWorst)],
          [
            `${cut.length} cut off → all fenced, the others' target computed`,
            fenced ? ms(fencedMs) : `not within ${ms(FENCE_WAIT_MS)}`,
            ms(probe.worst()),
          ],
        ],
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
