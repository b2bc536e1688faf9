import { AssignorRegistry, type MemberAssignment, type PartitionAssignor } from '@cohort/assignors';
import { ErrorCode } from '@cohort/protocol';
import { ConsumerGroupHarness } from '@cohort/coordinator/testing';
import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';
import { decodeConsumerRecordKey } from './consumer-records';

// When the assignor throws while a turn's heartbeats wait for their group's target, Kafka's answer is
// that of each heartbeat alone: UNKNOWN_SERVER_ERROR, and nothing of it written (one atomic write that
// the assignor's error aborts). The other groups of the turn go on as if the failing one were not there.

/** A §5 plugin that refuses any group subscribed to `poison`, and otherwise deals partitions round robin. */
const picky: PartitionAssignor = {
  name: 'picky',
  assign(cluster, members) {
    if (members.some((m) => m.subscription.topics.includes('poison'))) throw new Error('poison is not for me');
    const result: Record<string, MemberAssignment> = {};
    const ids = members.map((m) => m.memberId).sort();
    for (const id of ids) result[id] = { partitions: [] };
    let next = 0;
    for (const [topic, count] of Object.entries(cluster.partitionsPerTopic).sort()) {
      for (let p = 0; p < count; p++) {
        const owner = result[ids[next++ % ids.length]].partitions;
        const entry = owner.find((tp) => tp.topic === topic);
        if (entry) entry.partitions.push(p);
        else owner.push({ topic, partitions: [p] });
      }
    }
    return result;
  },
};

const join = (groupId: string, memberId: string, topics: string[]): ConsumerGroupHeartbeatRequest => ({
  groupId,
  memberId,
  memberEpoch: 0,
  rebalanceTimeoutMs: 60_000,
  subscribedTopicNames: topics,
  topicPartitions: [],
});

/** What a group holds that its records describe. */
function view(group: ConsumerGroup | undefined) {
  if (!group) return undefined;
  return {
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    metadataHash: group.metadataHash,
    members: [...group.members.values()].map((m) => [m.memberId, m.memberEpoch, m.state]).sort(),
    targets: [...group.targetAssignment.entries()].map(([id, target]) => [id, [...target.entries()]]).sort(),
  };
}

describe('a turn of heartbeats whose group assignor throws', () => {
  let h: ConsumerGroupHarness;
  let failed: [string, number, string][];
  const hooks = {
    onTargetFailed: (groupId: string, heartbeats: number, error: unknown) =>
      failed.push([groupId, heartbeats, error instanceof Error ? error.message : String(error)]),
  };

  beforeEach(() => {
    const registry = new AssignorRegistry({ builtIns: false });
    registry.register(picky, { source: 'a test plugin' });
    h = new ConsumerGroupHarness({
      assignors: [registry.consumerGroupAssignor('picky')!],
      topics: { orders: 4, poison: 2 },
    });
    failed = [];
  });

  const groupsWritten = (fromRecord: number) =>
    new Set(h.log.slice(fromRecord).map((record) => decodeConsumerRecordKey(record.key)!.groupId));

  const expectMemoryIsTheLog = (...groupIds: string[]) => {
    const reloaded = h.reloaded();
    for (const groupId of groupIds) expect(view(h.groups.get(groupId))).toEqual(view(reloaded.get(groupId)));
  };

  it("fails exactly that group's heartbeats, writes nothing of them, and leaves the other groups of the turn alone", () => {
    const setup = h.heartbeatBatch([join('bad', 'b1', ['orders']), join('steady', 's1', ['orders'])], [], hooks);
    expect(setup.answers.map((a) => a.response.errorCode)).toEqual([0, 0]);
    const badBefore = view(h.groups.get('bad'));
    const b1Epoch = setup.answers[0].response.memberEpoch;
    const logBefore = h.log.length;

    const turn = h.heartbeatBatch(
      [
        join('bad', 'b2', ['orders', 'poison']),
        join('good', 'g1', ['orders']),
        { groupId: 'bad', memberId: 'b1', memberEpoch: b1Epoch },
        join('steady', 's2', ['orders']),
      ],
      [],
      hooks,
    );

    const [b2, g1, b1, s2] = turn.answers;
    for (const refused of [b2, b1]) {
      expect(refused.waits).toBe(false);
      expect(refused.response.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
      expect(refused.response.errorMessage).toContain('poison is not for me');
    }
    expect([g1, s2].map((a) => [a.waits, a.response.errorCode])).toEqual([
      [true, 0],
      [true, 0],
    ]);
    expect(g1.response.assignment?.topicPartitions).toEqual([{ topic: 'orders', partitions: [0, 1, 2, 3] }]);
    expect(groupsWritten(logBefore)).toEqual(new Set(['good', 'steady']));
    expect(view(h.groups.get('bad'))).toEqual(badBefore);
    expect(h.groups.get('bad')?.member('b2')).toBeUndefined();
    expect(view(h.groups.get('steady'))?.members.map(([id]) => id)).toEqual(['s1', 's2']);
    expectMemoryIsTheLog('bad', 'good', 'steady');
    expect(failed).toEqual([['bad', 2, expect.stringContaining('poison is not for me')]]);
  });

  it('a group created by the failing join is gone again, and a leave of the same group in the turn stays written', () => {
    const setup = h.heartbeatBatch([join('bad', 'b1', ['orders']), join('bad', 'b3', ['orders'])], [], hooks);
    expect(setup.answers.map((a) => a.response.errorCode)).toEqual([0, 0]);
    const logBefore = h.log.length;

    const turn = h.heartbeatBatch(
      [
        join('new', 'n1', ['poison']),
        join('bad', 'b2', ['orders', 'poison']),
        { groupId: 'bad', memberId: 'b3', memberEpoch: -1 },
      ],
      [],
      hooks,
    );

    expect(turn.answers.map((a) => a.response.errorCode)).toEqual([
      ErrorCode.UNKNOWN_SERVER_ERROR,
      ErrorCode.UNKNOWN_SERVER_ERROR,
      0,
    ]);
    expect(h.groups.get('new')).toBeUndefined();
    expect(groupsWritten(logBefore)).toEqual(new Set(['bad']));
    expect(view(h.groups.get('bad'))?.members.map(([id]) => id)).toEqual(['b1']);
    expectMemoryIsTheLog('bad', 'new');
    expect(failed.map(([groupId, heartbeats]) => [groupId, heartbeats])).toEqual([
      ['new', 1],
      ['bad', 1],
    ]);
  });
});
