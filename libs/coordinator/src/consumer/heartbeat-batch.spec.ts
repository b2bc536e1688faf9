import type { TopicPartitions as TopicPartitionList } from '@cohort/protocol';
import { createUniformAssignor } from '@cohort/assignors';
import { ConsumerGroupHarness, CountingUniformAssignor } from '@cohort/coordinator/testing';
import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';

// The heartbeats of one turn run together: the group's target is computed once for all of them, and
// every answer is what the member would get had the turn's heartbeats arrived one after another.

const G = 'orders-app';
const TOPIC = 'orders';

const join = (memberId: string): ConsumerGroupHeartbeatRequest => ({
  groupId: G,
  memberId,
  memberEpoch: 0,
  rebalanceTimeoutMs: 60_000,
  subscribedTopicNames: [TOPIC],
  topicPartitions: [],
});

const ack = (memberId: string, memberEpoch: number, owned: TopicPartitionList[]): ConsumerGroupHeartbeatRequest => ({
  groupId: G,
  memberId,
  memberEpoch,
  topicPartitions: owned,
});

function ownedBy(partitions: TopicPartitionList[] | undefined): number[] {
  return (partitions ?? []).flatMap((tp) => tp.partitions);
}

describe('a turn of consumer group heartbeats', () => {
  let assignor: CountingUniformAssignor;
  let h: ConsumerGroupHarness;

  beforeEach(() => {
    assignor = new CountingUniformAssignor();
    h = new ConsumerGroupHarness({ assignors: [assignor], topics: { [TOPIC]: 40 } });
  });

  it('forms a group of 20 joining members with one run of the assignor, each answered with its own disjoint share', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `m${i}`);
    const { answers } = h.heartbeatBatch(ids.map(join));

    expect(assignor.runs).toBe(1);
    expect(answers.every((a) => a.waits && a.response.errorCode === 0)).toBe(true);
    const epochs = new Set(answers.map((a) => a.response.memberEpoch));
    expect([...epochs]).toEqual([h.groups.get(G)!.groupEpoch]);
    const all = answers.flatMap((a) => ownedBy(a.response.assignment?.topicPartitions));
    expect(all.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, p) => p));
    for (const a of answers) expect(ownedBy(a.response.assignment?.topicPartitions)).toHaveLength(2);
    expect(h.groups.get(G)!.state).toBe('Stable');
  });

  it('leaves the log describing the same group, as a new leader would load it', () => {
    h.heartbeatBatch(Array.from({ length: 5 }, (_, i) => join(`m${i}`)));
    const live = h.groups.get(G)!;
    const loaded = h.reloaded().get(G)!;
    expect(loaded.groupEpoch).toBe(live.groupEpoch);
    expect(loaded.assignmentEpoch).toBe(live.assignmentEpoch);
    expect([...loaded.members.keys()]).toEqual([...live.members.keys()]);
    for (const [memberId, target] of live.targetAssignment) expect(loaded.targetAssignmentOf(memberId)).toEqual(target);
  });

  it('a member joining a stable group: the members giving it partitions are told, the newcomer answered directly', () => {
    const first = h.heartbeatBatch([join('a'), join('b')]).answers;
    const epoch = first[0].response.memberEpoch;
    const { answers, tell } = h.heartbeatBatch([join('c')]);

    expect(answers[0].response.errorCode).toBe(0);
    const told = tell.get(G) ?? new Set();
    expect(told.has('c')).toBe(false);
    // a and b each lose partitions to c: their targets changed, so they are told to heartbeat now.
    expect([...told].sort()).toEqual(['a', 'b']);
    // c waits for the partitions a and b still own; once they give them up, c is told it may take them.
    expect(ownedBy(answers[0].response.assignment?.topicPartitions)).toEqual([]);
    const revoke = h.heartbeatBatch([
      ack('a', epoch, first[0].response.assignment!.topicPartitions),
      ack('b', epoch, first[1].response.assignment!.topicPartitions),
    ]);
    const kept = revoke.answers.map((a) => a.response.assignment!.topicPartitions);
    const released = h.heartbeatBatch([ack('a', epoch, kept[0]), ack('b', epoch, kept[1])]);
    expect([...(released.tell.get(G) ?? [])]).toEqual(['c']);
    const c = h.heartbeatBatch([ack('c', answers[0].response.memberEpoch, [])]).answers[0].response;
    expect(ownedBy(c.assignment?.topicPartitions)).toHaveLength(13);
  });

  it('run in small steps (as the shard spreads a big batch over turns), 20 joins get the same answers and one assignor run', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `m${i}`);
    const whole = new ConsumerGroupHarness({ assignors: [createUniformAssignor()], topics: { [TOPIC]: 40 } });
    const expected = whole.heartbeatBatch(ids.map(join)).answers;

    const stepped = h.heartbeatBatchInSteps(ids.map(join), 3);

    expect(stepped.steps).toBe(8); // the first halves and the target, then 3 members a step
    expect(assignor.runs).toBe(1);
    expect(stepped.answers).toEqual(expected);
    expect(h.groups.get(G)!.state).toBe('Stable');
    expect(h.reloaded().get(G)!.groupEpoch).toBe(whole.groups.get(G)!.groupEpoch);
  });

  it('members giving partitions to a burst of joins are told after its first step, and the joins answered after they released take those partitions at once', () => {
    const first = h.heartbeatBatch([join('a'), join('b')]).answers;
    const epoch = first[0].response.memberEpoch;
    const joiners = Array.from({ length: 8 }, (_, i) => `j${i}`);
    const toldEarly: string[][] = [];
    const awaited: boolean[] = [];
    const burst = h.heartbeatBatchInSteps(joiners.map(join), 2, {
      between: (step, batch) => {
        if (step !== 1) return;
        // The target is computed and written: a and b lose partitions and are told now, not once all 8 are answered.
        toldEarly.push([...(batch.takeTells().get(G) ?? [])].sort());
        awaited.push(batch.awaits(G, 'a'), batch.awaits(G, 'j0'));
        // a and b heartbeat, learn what they keep, and give up the rest, while the burst is still being answered.
        const revoke = h.heartbeatBatch([
          ack('a', epoch, first[0].response.assignment!.topicPartitions),
          ack('b', epoch, first[1].response.assignment!.topicPartitions),
        ]).answers;
        const kept = revoke.map((a) => a.response.assignment!.topicPartitions);
        h.heartbeatBatch([ack('a', epoch, kept[0]), ack('b', epoch, kept[1])]);
      },
    });

    expect(toldEarly).toEqual([['a', 'b']]);
    expect(awaited).toEqual([false, true]);
    expect(burst.answers.map((a) => a.response.errorCode)).toEqual(joiners.map(() => 0));
    // Every joiner was answered after the release: each holds its whole share in its first answer, none is told again.
    for (const a of burst.answers) expect(ownedBy(a.response.assignment?.topicPartitions)).toHaveLength(4);
    expect(burst.tell.get(G) ?? new Set()).toEqual(new Set());
    expect(h.groups.get(G)!.state).toBe('Stable');
  });

  it('a member fenced between two steps of a batch gets UNKNOWN_MEMBER_ID; the others are answered', () => {
    const first = h.heartbeatBatch([join('a'), join('b')]).answers;
    const epoch = first[0].response.memberEpoch;
    const requests = [ack('a', epoch, first[0].response.assignment!.topicPartitions), join('c')];
    // The first step runs both first halves and the target; `a` leaves before the second halves run.
    const batch = h.heartbeatBatchInSteps(requests, 2, {
      between: (step) => {
        if (step === 1) h.heartbeat({ groupId: G, memberId: 'a', memberEpoch: -1 });
      },
    });

    expect(batch.answers[0].response.errorCode).toBe(25);
    expect(batch.answers[1].response.errorCode).toBe(0);
    expect(ownedBy(batch.answers[1].response.assignment?.topicPartitions).length).toBeGreaterThan(0);
    expect(h.groups.get(G)!.member('a')).toBeUndefined();
  });

  it('an answer handed out leaves the batch; a batch abandoned then answers only the heartbeats not answered yet', () => {
    const notCoordinator = { errorCode: 14, errorMessage: 'moved', memberEpoch: 0, heartbeatIntervalMs: 0 } as const;
    let handedOut: unknown[] = [];
    let held: unknown[] = [];
    h.heartbeatBatchInSteps([join('a'), join('b'), join('c')], 2, {
      between: (step, running) => {
        if (step !== 2) return;
        handedOut = running.answers.fresh.splice(0).map((index) => running.answers.handOut(index));
        running.abandon(notCoordinator as never);
        held = [...running.answers.byIndex];
      },
    });

    expect(handedOut).toEqual([
      { waits: true, response: expect.objectContaining({ errorCode: 0, memberId: 'a' }) },
      { waits: true, response: expect.objectContaining({ errorCode: 0, memberId: 'b' }) },
    ]);
    // What was handed out is no longer held; c alone was answered by the abandon.
    expect(held).toEqual([undefined, undefined, { waits: false, response: notCoordinator }]);
  });

  it("a member's second heartbeat in the same turn waits for the batch's next round, after its first", () => {
    // a's retried join (its first unanswered) arrives before b's join: it runs once a and b are answered.
    const { answers } = h.heartbeatBatch([join('a'), join('a'), join('b')]);
    expect(answers.map((a) => a.response.errorCode)).toEqual([0, 0, 0]);
    // Both joins share the group's one target (epoch 2); the retry is then a's previous epoch (0) with
    // nothing owned, as Kafka lets in, answered at the same target.
    expect(answers.map((a) => a.response.memberEpoch)).toEqual([2, 2, 2]);
    expect(ownedBy(answers[1].response.assignment?.topicPartitions)).toEqual(
      ownedBy(answers[0].response.assignment?.topicPartitions),
    );
    expect(assignor.runs).toBe(1);
  });

  it("a leave sent behind the member's own join in the same turn runs after it: the member joined, then left", () => {
    const { answers } = h.heartbeatBatch([join('a'), { groupId: G, memberId: 'a', memberEpoch: -1 }, join('b')]);
    expect(answers.map((a) => a.response.errorCode)).toEqual([0, 0, 0]);
    expect(answers[1].response.memberEpoch).toBe(-1);
    expect([...h.groups.get(G)!.members.keys()]).toEqual(['b']);
  });

  it('every member joining twice in one turn (a join and its retry after a pause of the node): two runs of the assignor, not one per member', () => {
    const ids = Array.from({ length: 20 }, (_, i) => `m${i}`);
    // Each socket's two requests are read one after the other.
    const awaited: boolean[] = [];
    const { answers } = h.heartbeatBatchInSteps(
      ids.flatMap((id) => [join(id), join(id)]),
      7,
      {
        // Once m0's join is answered, its retry still waits in the batch: a session expiring meanwhile
        // must not fence it (the shard asks `awaits`), nor a later request of it start another batch.
        between: (_, batch) => {
          const given = batch.answers.byIndex;
          if (given[0] !== undefined && given[1] === undefined) awaited.push(batch.awaits(G, 'm0'));
        },
      },
    );
    expect(awaited.length).toBeGreaterThan(0);
    expect(awaited.every(Boolean)).toBe(true);

    expect(assignor.runs).toBeLessThanOrEqual(2);
    expect(answers.every((a) => a.waits && a.response.errorCode === 0)).toBe(true);
    // Each member's retry is answered with the same share as its join, and the shares cover the topic.
    const firsts = answers.filter((_, i) => i % 2 === 0).map((a) => ownedBy(a.response.assignment?.topicPartitions));
    const retries = answers.filter((_, i) => i % 2 === 1).map((a) => ownedBy(a.response.assignment?.topicPartitions));
    expect(retries).toEqual(firsts);
    expect(firsts.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, p) => p));
    expect(h.groups.get(G)!.members.size).toBe(20);
  });

  it('an invalid heartbeat is answered at once with its error and changes nothing for the others', () => {
    const { answers } = h.heartbeatBatch([join('a'), { ...join('b'), rebalanceTimeoutMs: -1 }, join('c')]);
    expect(answers[1]).toEqual({ waits: false, response: expect.objectContaining({ errorCode: 42 }) });
    expect([...h.groups.get(G)!.members.keys()]).toEqual(['a', 'c']);
    expect(h.hasSessionTimeout(G, 'b')).toBe(false);
    expect(h.hasSessionTimeout(G, 'c')).toBe(true);
  });
});
