import type { Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { CohortClient, type CohortMember } from '@cohort/client';
import { appPerFile } from '../support/app-per-file';
import { eventually } from '../support/group-member';
import { MemberTimeline } from '../support/member-timeline';
import { connect, request as emit } from '../support/socket-client';

jest.setTimeout(90_000);

/**
 * Online migration over real sockets (Kafka's `group.consumer.migration.policy`, default bidirectional):
 * a classic SDK member (`client.member`, cooperative-sticky) owns a topic; a ConsumerGroupHeartbeat
 * client joins the same group id, which becomes a consumer group; the classic member keeps working
 * through JoinGroup/SyncGroup/Heartbeat and gives up half the partitions before the other gets them,
 * as both report; then the consumer-protocol member leaves and the group is classic again, the SDK
 * member owning everything once more.
 */
describe('online migration between the classic and the consumer protocol (e2e)', () => {
  const app = appPerFile({ topics: { orders: 6 } });
  const clients: CohortClient[] = [];
  const sockets: Socket[] = [];

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    for (const socket of sockets.splice(0)) socket.disconnect();
  });

  const keys = (list: P.TopicPartitions[]): string[] =>
    list.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`)).sort();

  /** A consumer-protocol member driven by hand, whose ownership changes go into `timeline` as it sees them. */
  class RawConsumerMember {
    epoch = 0;
    owned: P.TopicPartitions[] = [];

    constructor(
      private readonly socket: Socket,
      private readonly timeline: MemberTimeline,
      readonly groupId: string,
      readonly memberId: string,
    ) {}

    async heartbeat(fields: Partial<P.ConsumerGroupHeartbeatRequest>): Promise<P.ConsumerGroupHeartbeatResponse> {
      const answer = await emit(this.socket, 'ConsumerGroupHeartbeat', {
        groupId: this.groupId,
        memberId: this.memberId,
        memberEpoch: this.epoch,
        topicPartitions: this.owned,
        ...fields,
      } as P.ConsumerGroupHeartbeatRequest);
      if (answer.errorCode !== 0) throw new Error(`heartbeat: ${answer.errorName ?? answer.errorCode}`);
      this.epoch = answer.memberEpoch;
      if (answer.assignment) {
        const before = keys(this.owned);
        const after = keys(answer.assignment.topicPartitions);
        // What left the assignment is given up now (and reported by the next heartbeat); what came is owned.
        const revoked = before.filter((p) => !after.includes(p));
        const assigned = after.filter((p) => !before.includes(p));
        const at = performance.now();
        if (revoked.length > 0) this.timeline.entries.push({ member: 'c', kind: 'revoked', partitions: revoked, at });
        if (assigned.length > 0)
          this.timeline.entries.push({ member: 'c', kind: 'assigned', partitions: assigned, at });
        this.owned = answer.assignment.topicPartitions;
      }
      return answer;
    }
  }

  async function listedType(admin: Socket, groupId: string): Promise<string | undefined> {
    const answer = await emit(admin, 'ListGroups', {} as P.ListGroupsRequest);
    return answer.groups.find((g) => g.groupId === groupId)?.groupType;
  }

  it('a classic SDK member and a consumer-protocol member share the group, then the group goes back to classic', async () => {
    const groupId = 'migrating';
    const timeline = new MemberTimeline();
    const client = new CohortClient({ urls: [app.url], clientId: 'migration-e2e' });
    clients.push(client);
    const a: CohortMember = timeline.watch(
      'a',
      client.member({ groupId, topics: ['orders'], sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 }),
    );
    await a.start();
    await eventually(() => a.state === 'stable' && keys(a.assignment).length === 6, 'a owns the six partitions');

    const admin = await connect(app.url);
    const socket = await connect(app.url);
    sockets.push(admin, socket);
    expect(await listedType(admin, groupId)).toBe('classic');

    // The consumer-protocol member joins: the group converts, a keeps its partitions until told otherwise.
    const c = new RawConsumerMember(socket, timeline, groupId, 'c-member-0001');
    const joined = await c.heartbeat({ memberEpoch: 0, subscribedTopicNames: ['orders'], rebalanceTimeoutMs: 30_000 });
    expect(joined.errorCode).toBe(0);
    expect(await listedType(admin, groupId)).toBe('consumer');

    // c heartbeats as a client would; a rejoins on the coordinator's push and revokes before c is given anything.
    await eventually(
      async () => {
        await c.heartbeat({});
        return a.state === 'stable' && keys(a.assignment).length === 3 && keys(c.owned).length === 3;
      },
      'a and c own three partitions each',
      45_000,
    );
    expect([...keys(a.assignment), ...keys(c.owned)].sort()).toEqual(
      ['orders-0', 'orders-1', 'orders-2', 'orders-3', 'orders-4', 'orders-5'].sort(),
    );
    expect(timeline.doubleOwnership()).toEqual([]);
    const described = await emit(admin, 'ConsumerGroupDescribe', {
      groupIds: [groupId],
    } as P.ConsumerGroupDescribeRequest);
    const types = Object.fromEntries(described.groups[0].members.map((m) => [m.memberId, m.memberType]));
    expect(types).toEqual({ [a.memberId!]: 0, [c.memberId]: 1 });

    // The consumer-protocol member leaves: the group is classic again and a takes everything back.
    for (const p of keys(c.owned))
      timeline.entries.push({ member: 'c', kind: 'revoked', partitions: [p], at: performance.now() });
    const left = await emit(socket, 'ConsumerGroupHeartbeat', {
      groupId,
      memberId: c.memberId,
      memberEpoch: -1,
    } as P.ConsumerGroupHeartbeatRequest);
    expect(left.errorCode).toBe(0);
    expect(await listedType(admin, groupId)).toBe('classic');
    await eventually(
      () => a.state === 'stable' && keys(a.assignment).length === 6,
      'a owns the six partitions again',
      30_000,
    );
    const classic = await emit(admin, 'DescribeGroups', { groups: [groupId] } as P.DescribeGroupsRequest);
    expect(classic.groups[0]).toMatchObject({ groupState: 'Stable', protocolType: 'consumer' });
    expect(classic.groups[0].members.map((m) => m.memberId)).toEqual([a.memberId]);
    expect(timeline.doubleOwnership()).toEqual([]);
    expect(timeline.entries.filter((e) => e.kind === 'lost')).toEqual([]);
  });
});
