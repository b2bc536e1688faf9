import { thrown } from '@cohort/assignors/testing';
import type { MemberAssignment } from '@cohort/protocol';
import type { ClusterView, MemberSubscription, PartitionAssignor } from '../api/partition-assignor';
import { createRangeAssignor } from '../range/range-assignor';
import { createCooperativeStickyAssignor } from '../sticky/cooperative-sticky-assignor';
import { AssignorError } from './assignor-error';
import { runAssignor } from './run-assignor';

const cluster: ClusterView = { partitionsPerTopic: { t: 2 } };
const members: MemberSubscription[] = [
  { memberId: 'a', subscription: { topics: ['t'] } },
  { memberId: 'b', subscription: { topics: ['t'] } },
];
const plugin = (
  assign: PartitionAssignor['assign'],
  supportedProtocols?: PartitionAssignor['supportedProtocols'],
): PartitionAssignor => ({ name: 'plugin', supportedProtocols, assign });

const failure = (run: () => unknown): AssignorError => thrown(AssignorError, run);

describe('runAssignor', () => {
  it('returns a valid assignment as a fresh copy the plugin cannot change afterwards', () => {
    const returned: Record<string, MemberAssignment> = {
      a: { partitions: [{ topic: 't', partitions: [0] }] },
      b: { partitions: [{ topic: 't', partitions: [1] }], userData: { v: 1 } },
    };
    const result = runAssignor(
      plugin(() => returned),
      cluster,
      members,
    );
    returned.a.partitions[0].partitions.push(1);
    expect(result).toEqual({
      a: { partitions: [{ topic: 't', partitions: [0] }] },
      b: { partitions: [{ topic: 't', partitions: [1] }], userData: { v: 1 } },
    });
  });

  it('reports a plugin that throws, naming it, instead of crashing', () => {
    const error = failure(() =>
      runAssignor(
        plugin(() => {
          throw new TypeError('boom');
        }),
        cluster,
        members,
      ),
    );
    expect(error.message).toBe("assignor 'plugin' failed: boom");
    expect(error.failure).toBe('threw');
    expect(error.errorCode).toBe(-1);
  });

  it('reports an invalid assignment with what is wrong', () => {
    const error = failure(() =>
      runAssignor(
        plugin(() => ({
          a: { partitions: [{ topic: 't', partitions: [0, 1] }] },
          b: { partitions: [{ topic: 't', partitions: [1] }] },
        })),
        cluster,
        members,
      ),
    );
    expect(error.failure).toBe('invalid-assignment');
    expect(error.message).toBe(
      "assignor 'plugin' returned an invalid assignment: t-1 is assigned twice (to 'a' and 'b')",
    );
  });

  it('gives a plugin its own copy of the input', () => {
    const input: MemberSubscription[] = [{ memberId: 'a', subscription: { topics: ['t'] } }];
    runAssignor(
      plugin((_cluster, given) => {
        given[0].subscription.topics.push('mutated');
        return { a: { partitions: [{ topic: 't', partitions: [0, 1] }] } };
      }),
      cluster,
      input,
    );
    expect(input[0].subscription.topics).toEqual(['t']);
  });

  it('validates input before calling the assignor', () => {
    const assign = jest.fn();
    expect(() => runAssignor(plugin(assign), { partitionsPerTopic: { t: -2 } }, members)).toThrow(
      'partitionsPerTopic.t: partition count must be a non-negative integer, got -2',
    );
    expect(assign).not.toHaveBeenCalled();
  });

  it('enforces the cooperative rule for assignors that declare cooperative', () => {
    const owned: MemberSubscription[] = [
      { memberId: 'a', subscription: { topics: ['t'], ownedPartitions: [{ topic: 't', partitions: [0, 1] }] } },
      { memberId: 'b', subscription: { topics: ['t'] } },
    ];
    const moveAtOnce = plugin(
      () => ({
        a: { partitions: [{ topic: 't', partitions: [0] }] },
        b: { partitions: [{ topic: 't', partitions: [1] }] },
      }),
      ['cooperative', 'eager'],
    );
    expect(failure(() => runAssignor(moveAtOnce, cluster, owned)).message).toContain('t-1 moves to');
    expect(runAssignor(moveAtOnce, cluster, owned, { protocol: 'eager' }).b.partitions).toEqual([
      { topic: 't', partitions: [1] },
    ]);
    // The built-in cooperative assignor withholds t-1 for one round instead.
    expect(runAssignor(createCooperativeStickyAssignor(), cluster, owned)).toEqual({
      a: { partitions: [{ topic: 't', partitions: [0] }] },
      b: { partitions: [] },
    });
  });

  it('validates the input of a built-in once, with the limits it was given, and only for that call', () => {
    // One more member than the default limit: the runner is told to allow it, and the built-in (which
    // checks its own input when called directly) must not apply the default on top.
    const many: MemberSubscription[] = Array.from({ length: 100_001 }, (_, m) => ({
      memberId: `m${m}`,
      subscription: { topics: ['t'] },
    }));
    const range = createRangeAssignor();
    const result = runAssignor(range, cluster, many, { isolateInput: false, limits: { maxMembers: 200_000 } });
    expect(Object.keys(result)).toHaveLength(100_001);
    expect(() => range.assign(cluster, many)).toThrow(/exceed the limit of 100000/);
    // After a run, the same input is checked again when called directly.
    const bad = [...members];
    runAssignor(range, cluster, bad, { isolateInput: false });
    (bad as unknown[]).push({ memberId: 'a', subscription: { topics: ['t'] } });
    expect(() => range.assign(cluster, bad)).toThrow(/duplicate member id 'a'/);
  });
});
