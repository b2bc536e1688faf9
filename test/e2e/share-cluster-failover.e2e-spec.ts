import { Redis } from 'ioredis';
import request from 'supertest';
import { CohortClient, type ShareMember } from '@cohort/client';
import { freePort } from '@cohort/replication/testing';
import { eventually } from '../support/group-member';
import { RequestTrail } from '../support/request-trail';
import { startNode } from '../support/spawned-node';
import { tempDataDir } from '../support/test-app';

jest.setTimeout(600_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOPIC = 'jobs';
const PARTITIONS = 2;
/** Offsets per partition the producer reports, in steps, while the workers drain them. */
const JOBS = 300;
const STEP = 10;

type Spawned = ReturnType<typeof startNode> & { nodeId: number; url: string };

interface SharePartitionView {
  topic: string;
  partition: number;
  startOffset: number;
  endOffset: number;
  offsets: { available: number; acquired: number; acknowledged: number; archived: number };
}

/**
 * Share-group workers (`client.shareMember`) draining a queue served by a 3-node cluster of real
 * processes, whose coordinator node is SIGKILLed mid-run: the workers carry on against the new
 * coordinator, every offset is acknowledged in the end, no offset whose acknowledgement was answered is
 * ever leased again, and an offset's delivery count never goes down (KIP-932's invariants, docs/guarantees.md).
 *
 * "Acknowledged in the end" is the coordinator's word (every offset under SPSO, none a dead letter), not
 * the workers' answers: an acknowledgement whose write committed just before the kill gets no answer; the
 * SDK sends it again to the new coordinator, which refuses it (42: those offsets are done, held by nobody)
 * unless SPSO has passed them already, and, done, they are never leased again, so no worker would ever
 * hear them acknowledged.
 */
describe('share group workers across a coordinator SIGKILL in a 3-node cluster (e2e)', () => {
  const clusterId = `share-failover-${process.pid}-${process.hrtime.bigint().toString(36)}`;
  const dirs = [0, 1, 2].map(() => tempDataDir('cohort-share-failover-'));
  const nodes = new Map<number, Spawned>();
  const clients: CohortClient[] = [];

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await Promise.all([...nodes.values()].map((n) => n.stop('SIGKILL')));
    const admin = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, retryStrategy: () => null });
    const keys = await admin.keys(`${clusterId}:*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
    for (const d of dirs) d.remove();
  });

  const live = (): Spawned[] => [...nodes.values()];

  async function spawn(nodeId: number): Promise<void> {
    const port = await freePort();
    const node = startNode(dirs[nodeId].dir, {
      PORT: String(port),
      LOG_LEVEL: 'warn',
      CLUSTER_MODE: 'redis',
      REDIS_URL,
      CLUSTER_ID: clusterId,
      NODE_ID: String(nodeId),
      REPLICATION_PORT: '0',
      OFFSETS_TOPIC_NUM_PARTITIONS: '6',
      NODE_SESSION_TIMEOUT_MS: '3000',
      REPLICA_LAG_TIME_MAX_MS: '3000',
      REPLICA_FETCH_WAIT_MAX_MS: '100',
      GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      GROUP_SHARE_AUTO_OFFSET_RESET: 'earliest',
      // Leases the workers lose with the old coordinator come back when the new one loads them, not when
      // a lock runs out; a short lock only bounds a worker that never heard.
      GROUP_SHARE_RECORD_LOCK_DURATION_MS: '10000',
    });
    nodes.set(nodeId, Object.assign(node, { nodeId, url: `http://127.0.0.1:${port}` }));
  }

  it('workers carry on against the new coordinator: every offset acknowledged, none leased again after its acknowledgement, delivery counts never down', async () => {
    await Promise.all([0, 1, 2].map(spawn));
    await eventually(
      async () => {
        const answers = await Promise.all(
          live().map((n) =>
            request(n.url)
              .get('/health/ready')
              .then((r) => r.status === 200)
              .catch(() => false),
          ),
        );
        return answers.every(Boolean);
      },
      'three nodes up, every one serving what it leads',
      240_000,
    );
    await request(nodes.get(0)!.url).post('/v1/topics').send({ name: TOPIC, partitions: PARTITIONS }).expect(201);
    for (const n of live())
      await eventually(async () => (await request(n.url).get(`/v1/topics/${TOPIC}`)).status === 200, 'the topic');

    const groupId = 'share-failover';
    const urls = live().map((n) => n.url);
    const violations: string[] = [];
    /** Offsets (`partition-offset`) a worker accepted. */
    const accepted = new Set<string>();
    /** Offsets (`partition-offset`) whose ACCEPT was answered without error. */
    const acknowledged = new Set<string>();
    const deliveries = new Map<string, number>();
    let leasedAfterKill = 0;
    let killed = false;
    const trails = [0, 1, 2].map(() => new RequestTrail());
    /** Per worker, what it last saw: a lease, an acknowledgement's answer, an error. */
    const seen = [0, 1, 2].map(() => ({ lease: 'none', acknowledged: 'none', error: 'none' }));
    const at = (): string => new Date().toISOString().slice(11, 23);
    const workers: ShareMember[] = [0, 1, 2].map((i) => {
      const client = new CohortClient({ urls, clientId: `share-failover-w${i}`, socketFactory: trails[i].factory });
      clients.push(client);
      const member = client.shareMember({
        groupId,
        topics: [TOPIC],
        acknowledgement: 'explicit',
        maxRecords: 10,
        maxWaitMs: 500,
      });
      member.on('error', (error) => (seen[i].error = `${at()} ${error.name}: ${error.message}`));
      member.on('crash', (error) => (seen[i].error = `${at()} crashed, ${error.name}: ${error.message}`));
      member.on('acknowledged', ({ partition, offsets, error }) => {
        const ranges = offsets.map((o) => `${o.firstOffset}-${o.lastOffset} ${o.type}`).join(', ');
        seen[i].acknowledged =
          `${at()} ${partition}: ${ranges}${error ? ` refused ${error.name}: ${error.message}` : ''}`;
        if (error) return;
        for (const { firstOffset, lastOffset, type } of offsets)
          for (let o = firstOffset; o <= lastOffset; o++) if (type === 'accept') acknowledged.add(`${partition}-${o}`);
      });
      void (async () => {
        for await (const lease of member.leases()) {
          for (let o = lease.firstOffset; o <= lease.lastOffset; o++) {
            const key = `${lease.partition}-${o}`;
            if (acknowledged.has(key)) violations.push(`w${i} leased ${key} after its acknowledgement was answered`);
            const before = deliveries.get(key) ?? 0;
            if (lease.deliveryCount <= before)
              violations.push(`w${i} leased ${key} with delivery count ${lease.deliveryCount} after ${before}`);
            deliveries.set(key, Math.max(before, lease.deliveryCount));
          }
          if (killed) leasedAfterKill += lease.lastOffset - lease.firstOffset + 1;
          seen[i].lease =
            `${at()} ${lease.partition}: ${lease.firstOffset}-${lease.lastOffset} (delivery ${lease.deliveryCount})`;
          for (let o = lease.firstOffset; o <= lease.lastOffset; o++) accepted.add(`${lease.partition}-${o}`);
          member.acknowledge({
            topic: lease.topic,
            partition: lease.partition,
            firstOffset: lease.firstOffset,
            lastOffset: lease.lastOffset,
            type: 'accept',
          });
        }
      })();
      return member;
    });
    await Promise.all(workers.map((w) => w.start()));

    // The producer: end offsets reported in steps to whichever node is alive (the registry is the cluster's).
    let reported = 0;
    let producing = true;
    const producer = (async () => {
      while (producing && reported < JOBS) {
        const next = Math.min(JOBS, reported + STEP);
        const ok = await request(live()[0].url)
          .put(`/v1/topics/${TOPIC}/end-offsets`)
          .send({ partitions: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, endOffset: next })) })
          .then((r) => r.status === 200)
          .catch(() => false);
        if (ok) reported = next;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    /** The coordinator's share partitions, as `GET /v1/groups/:groupId` shows them, through any live node. */
    const sharePartitions = async (): Promise<SharePartitionView[] | string> => {
      const answer = await request(live()[0].url)
        .get(`/v1/groups/${groupId}`)
        .catch((error: unknown) => ({ status: 0, body: String(error) }));
      return answer.status === 200
        ? (answer.body as { sharePartitions: SharePartitionView[] }).sharePartitions
        : `${answer.status} ${JSON.stringify(answer.body)}`;
    };
    /** Where each worker is, what it last sent and heard, and what the coordinator holds: a stuck run's story. */
    const explain = async (): Promise<string> => {
      const notAnswered = [...accepted].filter((key) => !acknowledged.has(key));
      return [
        `producer reported ${reported} of ${JOBS} per partition; the coordinator was killed: ${killed}`,
        `accepted by workers ${accepted.size}, answered ${acknowledged.size} of ${JOBS * PARTITIONS}; ` +
          `accepted without an answer: ${notAnswered.length} (${notAnswered.slice(0, 20).join(' ')})`,
        `coordinator's share partitions: ${JSON.stringify(await sharePartitions())}`,
        ...workers.map(
          (w, i) =>
            `w${i}: ${w.state}, epoch ${w.memberEpoch}, assignment ${JSON.stringify(w.assignment)}\n    ` +
            `last lease ${seen[i].lease}\n    last acknowledgement answer ${seen[i].acknowledged}\n    ` +
            `last error ${seen[i].error}\n    ${trails[i].describe()}`,
        ),
      ].join('\n');
    };

    await eventually(
      () => acknowledged.size >= (JOBS * PARTITIONS) / 4,
      'a quarter of the jobs acknowledged before the kill',
      120_000,
      explain,
    );
    const { body: located } = await request(live()[0].url).get(`/v1/coordinator?groupId=${groupId}`).expect(200);
    const coordinator = nodes.get(located.nodeId as number)!;
    nodes.delete(coordinator.nodeId);
    await coordinator.stop('SIGKILL');
    // From here on every lease comes from another node.
    killed = true;

    const done = (partitions: SharePartitionView[] | string): boolean =>
      typeof partitions !== 'string' &&
      partitions.length === PARTITIONS &&
      partitions.every((p) => p.startOffset === JOBS && p.endOffset === JOBS);
    await eventually(
      async () => accepted.size === JOBS * PARTITIONS && done(await sharePartitions()),
      'the coordinator to hold every offset acknowledged (SPSO at the end of each partition) after the failover',
      240_000,
      explain,
    );
    producing = false;
    await producer;
    await Promise.all(workers.map((w) => w.stop()));

    expect(violations).toEqual([]);
    for (let p = 0; p < PARTITIONS; p++) for (let o = 0; o < JOBS; o++) expect(accepted.has(`${p}-${o}`)).toBe(true);
    // Under SPSO and not a dead letter: accepted (the workers accept every lease).
    const { body: letters } = await request(live()[0].url).get(`/v1/groups/${groupId}/dead-letters`).expect(200);
    expect(letters.deadLetters).toEqual([]);
    // Most acknowledgements were answered; only those the kill cut off may not have been.
    expect(acknowledged.size).toBeGreaterThan((JOBS * PARTITIONS) / 2);
    // The workers leased from the new coordinator, which is another node.
    expect(leasedAfterKill).toBeGreaterThan(0);
    const { body: moved } = await request(live()[0].url).get(`/v1/coordinator?groupId=${groupId}`).expect(200);
    expect(moved.nodeId).not.toBe(coordinator.nodeId);
  });
});
