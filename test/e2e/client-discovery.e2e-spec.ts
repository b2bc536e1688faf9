import request from 'supertest';
import { CohortClient, type CohortError, type CohortMember } from '@cohort/client';
import { partitionFor } from '@cohort/protocol';
import { eventually } from '../support/group-member';
import { holdings, MemberTimeline, settled } from '../support/member-timeline';
import { Firewall } from '../support/sdk-sockets';
import { ClusterHarness, PARTITIONS } from './cluster-harness';

jest.setTimeout(240_000);

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOPIC = 'ledger';

/** Three nodes, the topic on every one of them, and a group id whose coordinator is node 0. */
async function clusterWithGroupOnNode0(cluster: ClusterHarness, name: string): Promise<string> {
  await cluster.startAll();
  const urls = [...cluster.nodes.values()].map((n) => n.url);
  await request(urls[0]).post('/v1/topics').send({ name: TOPIC, partitions: 4 }).expect(201);
  for (const url of urls)
    await eventually(async () => (await request(url).get(`/v1/topics/${TOPIC}`)).status === 200, 'the topic');
  const { body: partitions } = await request(urls[0]).get('/v1/cluster/partitions').expect(200);
  const leaders = new Map<number, number>(
    (partitions as { partition: number; leader: number }[]).map((p) => [p.partition, p.leader]),
  );
  for (let i = 0; ; i++) {
    const groupId = `${name}-${i}`;
    if (leaders.get(partitionFor(groupId, PARTITIONS)) === 0) return groupId;
  }
}

/**
 * @cohort/client against three cluster-mode nodes, when the one node a client was given — its
 * bootstrap URL and its group's coordinator at once — is SIGKILLed and never comes back (issue: a
 * member retried `not connected to <that URL>` until the node returned, while the group gave its
 * partitions to another member, and both owned them for 27–38 s). Ownership is judged from the
 * members' own listener events and times.
 */
describe('@cohort/client: bootstrap, discovery and self-fencing in a 3-node cluster (e2e)', () => {
  const clients: CohortClient[] = [];
  const clusters: ClusterHarness[] = [];

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const cluster of clusters) await cluster.dispose();
  });

  function member(
    client: CohortClient,
    timeline: MemberTimeline,
    name: string,
    groupId: string,
    sessionTimeoutMs: number,
    errors: CohortError[],
  ): CohortMember {
    clients.push(client);
    const m = client.member({
      groupId,
      topics: [TOPIC],
      sessionTimeoutMs,
      heartbeatIntervalMs: 1000,
      autoCommit: false,
    });
    m.on('error', (e) => errors.push(e));
    m.on('crash', (e) => errors.push(e));
    return timeline.watch(name, m);
  }

  it('members given only the URL of the node that is bootstrap and coordinator at once find the new coordinator through the nodes they learned, and the group keeps them', async () => {
    const cluster = new ClusterHarness(REDIS_URL);
    clusters.push(cluster);
    const groupId = await clusterWithGroupOnNode0(cluster, 'bootstrap-dies');
    const node0 = cluster.nodes.get(0)!;
    const timeline = new MemberTimeline();
    const errors: CohortError[] = [];
    const quickStart = ['a', 'b'].map((name) => {
      // As README's quick start: one URL. A short metadataMaxAgeMs shows the dead node forgotten.
      const client = new CohortClient({ urls: [node0.url], clientId: name, metadataMaxAgeMs: 5000 });
      return { client, member: member(client, timeline, name, groupId, 20_000, errors) };
    });
    const members = quickStart.map((q) => q.member);
    await Promise.all(members.map((m) => m.start()));
    await eventually(() => settled(members, 4), 'the two members share the four partitions', 30_000);
    const everyNode = [...cluster.nodes.values()].map((n) => ({ nodeId: n.nodeId, url: n.url }));
    for (const { client } of quickStart) expect(client.nodes).toEqual(everyNode);
    const before = members.map((m) => ({ memberId: m.memberId, generationId: m.generationId }));
    const owned = holdings({ a: members[0], b: members[1] });

    const killedAt = performance.now();
    await cluster.kill(0); // never restarted: the bootstrap URL does not come back

    // Both carry on at the new coordinator: each commits what it owns there.
    await eventually(
      async () => {
        const results = await Promise.all(
          members.map((m) =>
            m
              .commit(
                m.assignment.flatMap((tp) =>
                  tp.partitions.map((partition) => ({ topic: TOPIC, partition, offset: 7 })),
                ),
              )
              .then(
                () => true,
                () => false,
              ),
          ),
        );
        return results.every(Boolean);
      },
      'both members commit through the new coordinator',
      90_000,
    );
    const recoveredMs = Math.round(performance.now() - killedAt);
    const live = [...cluster.nodes.values()][0].url;
    const { body: group } = await request(live).get(`/v1/groups/${groupId}`).expect(200);
    expect(group.coordinator).not.toBe(0);
    // No rebalance: the new coordinator kept both members, in the same generation, with the same partitions.
    expect(members.map((m) => ({ memberId: m.memberId, generationId: m.generationId }))).toEqual(before);
    expect((group.members as { memberId: string }[]).map((m) => m.memberId).sort()).toEqual(
      before.map((b) => b.memberId).sort(),
    );
    expect(holdings({ a: members[0], b: members[1] })).toEqual(owned);
    expect(timeline.entries.filter((e) => e.kind !== 'assigned')).toEqual([]);
    expect(timeline.overlaps()).toEqual([]);
    expect(errors.every((e) => e.retriable)).toBe(true);

    // The dead node is forgotten: the next refreshes come from the live nodes, which no longer list it.
    await eventually(
      () => quickStart.every(({ client }) => client.nodes.length === 2 && client.nodes.every((n) => n.nodeId !== 0)),
      'the clients forget the dead node',
      60_000,
    );
    expect(cluster.nodes.has(0)).toBe(false);
    console.log(
      `bootstrap+coordinator SIGKILL: both members committing at the new coordinator ${recoveredMs} ms after the kill, no rebalance`,
    );
  });

  it('a member cut off from every node fences itself — lost before the coordinator hands its partitions to the other member — and rejoins once it can reach a node', async () => {
    const cluster = new ClusterHarness(REDIS_URL);
    clusters.push(cluster);
    const groupId = await clusterWithGroupOnNode0(cluster, 'cut-off');
    const node0 = cluster.nodes.get(0)!;
    const timeline = new MemberTimeline();
    const errors: CohortError[] = [];
    // `cut` can reach node 0 only (a partial network partition); it learns the others but cannot reach them.
    const firewall = new Firewall((url) => url === node0.url);
    const cutClient = new CohortClient({ urls: [node0.url], clientId: 'cut', socketFactory: firewall.factory });
    // A 6 s session: both the member's own fence and the coordinator's expiry of it, which the test
    // waits for, come that long after the kill; the failover alone keeps them seconds apart.
    const cut = member(cutClient, timeline, 'cut', groupId, 6_000, errors);
    const okClient = new CohortClient({ urls: [node0.url], clientId: 'ok' });
    // A longer session for `ok`, so that it certainly finds the new coordinator before its own fence.
    const ok = member(okClient, timeline, 'ok', groupId, 20_000, []);
    await Promise.all([cut.start(), ok.start()]);
    await eventually(() => settled([cut, ok], 4), 'the two members share the four partitions', 30_000);
    const cutOwned = holdings({ cut }).cut;
    expect(cutOwned.length).toBeGreaterThan(0);

    const killedAt = performance.now();
    await cluster.kill(0);

    await eventually(
      () => holdings({ ok }).ok.length === 4,
      'the coordinator hands the cut-off member’s partitions to the other member',
      90_000,
    );
    const lost = timeline.entries.filter((e) => e.member === 'cut' && e.kind === 'lost');
    expect(lost.map((e) => [...e.partitions].sort())).toEqual([cutOwned]);
    // Never owned by two at once, by order and by time: the cut-off member let go first.
    expect(timeline.doubleOwnership()).toEqual([]);
    expect(timeline.overlaps()).toEqual([]);
    const handovers = timeline.handovers('cut', 'ok');
    expect(handovers.map((h) => h.partition).sort()).toEqual(cutOwned);
    expect(handovers.every((h) => h.gapMs > 0)).toBe(true);
    expect(() => cut.markProcessed({ topic: TOPIC, partition: 0, offset: 1 })).toThrow(
      expect.objectContaining({ name: 'SESSION_EXPIRED' }),
    );
    console.log(
      `cut-off member: lost ${Math.round(lost[0].at - killedAt)} ms after the SIGKILL; the other member got those partitions ${Math.round(Math.min(...handovers.map((h) => h.gapMs)))} ms after that (no overlap)`,
    );

    // The network heals: it reaches nodes 1 and 2, which it learned from node 0, and joins again.
    firewall.allows = () => true;
    await eventually(
      () => settled([cut, ok], 4) && cut.assignment.length > 0,
      'the cut-off member back in the group with a share',
      90_000,
    );
    expect(timeline.doubleOwnership()).toEqual([]);
    expect(timeline.overlaps()).toEqual([]);
    expect(cluster.nodes.has(0)).toBe(false);
  });
});
