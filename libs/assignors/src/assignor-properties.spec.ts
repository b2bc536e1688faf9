// Property tests over random groups (fast-check): validity, Kafka's balance definitions, stickiness,
// cooperative convergence and determinism, for the four built-in assignors.
import fc from 'fast-check';
import { KafkaError } from '@cohort/protocol';
import type { MemberSubscription, PartitionAssignor } from './api/partition-assignor';
import {
  isFullyBalanced,
  kafkaBalanceViolations,
  minimalMovesWhenUniform,
  movement,
  strictBalanceViolations,
} from './conformance/assignment-metrics';
import { createRangeAssignor } from './range/range-assignor';
import { createRoundRobinAssignor } from './roundrobin/roundrobin-assignor';
import { runAssignor } from './runner/run-assignor';
import { createCooperativeStickyAssignor } from './sticky/cooperative-sticky-assignor';
import { createStickyAssignor } from './sticky/sticky-assignor';
import { groupArbitrary, withOwned, type GroupCase } from '@cohort/assignors/testing';
import { validateAssignment } from './validation/validate-assignment';

const factories: Record<string, () => PartitionAssignor> = {
  range: () => createRangeAssignor(),
  roundrobin: () => createRoundRobinAssignor(),
  sticky: () => createStickyAssignor(),
  'cooperative-sticky': () => createCooperativeStickyAssignor(),
};

/** The sticky assignor reads ownership from user data; give it what a Java member would send. */
function asStickyMembers(members: MemberSubscription[]): MemberSubscription[] {
  return members.map((m) => ({
    ...m,
    subscription: {
      ...m.subscription,
      userData: { previousAssignment: m.subscription.ownedPartitions ?? [], generation: m.subscription.generationId },
    },
  }));
}

/**
 * Decided here from the group alone, not by the assignor's code: the members' subscriptions differ
 * (Kafka's general sticky path) and some member owns a partition none of whose replicas is on its rack
 * (KIP-881). Only such a round may revoke a partition and hand it back.
 */
function ownsRackMismatchedPartition(cluster: GroupCase['cluster'], members: MemberSubscription[]): boolean {
  const subscriptions = new Set(members.map((m) => [...new Set(m.subscription.topics)].sort().join('\u0000')));
  if (subscriptions.size < 2) return false;
  return members.some(({ subscription: { rackId, ownedPartitions } }) => {
    if (rackId === undefined || rackId === null) return false;
    return (ownedPartitions ?? []).some(({ topic, partitions }) =>
      partitions.some((p) => {
        const racks = cluster.partitionRacks?.[topic]?.[p];
        return racks !== undefined && racks.length > 0 && !racks.includes(rackId);
      }),
    );
  });
}

/** Drop some members, add some new ones: the membership change of a rebalance. */
function changeMembership(members: MemberSubscription[], leave: boolean[], joiners: number): MemberSubscription[] {
  const kept = members.filter((_, i) => !leave[i % leave.length]);
  const template = members[0]?.subscription.topics ?? [];
  const added = Array.from({ length: joiners }, (_, i) => ({
    memberId: `new-${i}`,
    subscription: { topics: [...template], ownedPartitions: [], generationId: -1 },
  }));
  const next = [...kept, ...added];
  return next.length > 0 ? next : added.length > 0 ? added : members.slice(0, 1);
}

describe('assignor properties (fast-check)', () => {
  describe.each(Object.keys(factories))('%s', (name) => {
    it('gives every subscribed partition to exactly one subscriber, nothing unsubscribed or nonexistent', () => {
      fc.assert(
        fc.property(groupArbitrary({ racks: true }), ({ cluster, members }) => {
          const result = factories[name]().assign(cluster, members);
          const validation = validateAssignment(cluster, members, result, { protocol: 'eager' });
          expect(validation.violations).toEqual([]);
        }),
        { numRuns: 150 },
      );
    });

    it('is deterministic: the same input gives the same assignment', () => {
      fc.assert(
        fc.property(groupArbitrary({ racks: true }), ({ cluster, members }) => {
          const first = factories[name]().assign(cluster, members);
          const second = factories[name]().assign(structuredClone(cluster), structuredClone(members));
          expect(second).toEqual(first);
        }),
        { numRuns: 100 },
      );
    });

    it('never crashes on malformed input: it answers INVALID_REQUEST or a valid assignment', () => {
      const junk = fc.oneof(
        fc.anything(),
        fc.record({ partitionsPerTopic: fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.double(), fc.string())) }),
      );
      const junkMembers = fc.oneof(
        fc.anything(),
        fc.array(
          fc.record(
            {
              memberId: fc.oneof(fc.string(), fc.integer()),
              groupInstanceId: fc.oneof(fc.string(), fc.constant(null), fc.integer()),
              subscription: fc.oneof(
                fc.anything(),
                fc.record(
                  {
                    topics: fc.oneof(fc.array(fc.string()), fc.anything()),
                    ownedPartitions: fc.oneof(
                      fc.anything(),
                      fc.array(
                        fc.record({ topic: fc.string(), partitions: fc.array(fc.oneof(fc.integer(), fc.double())) }),
                      ),
                    ),
                    generationId: fc.anything(),
                    rackId: fc.anything(),
                    userData: fc.anything(),
                  },
                  { requiredKeys: [] },
                ),
              ),
            },
            { requiredKeys: [] },
          ),
        ),
      );
      fc.assert(
        fc.property(junk, junkMembers, (cluster, members) => {
          try {
            runAssignor(factories[name](), cluster as never, members as never);
          } catch (error) {
            expect(error).toBeInstanceOf(KafkaError);
            expect((error as KafkaError).errorName).toBe('INVALID_REQUEST');
          }
        }),
        { numRuns: 200 },
      );
    });
  });

  it('roundrobin and the sticky assignors are fully balanced with identical subscriptions', () => {
    fc.assert(
      fc.property(groupArbitrary({ uniform: true }), ({ cluster, members }) => {
        for (const name of ['roundrobin', 'sticky', 'cooperative-sticky'])
          expect(isFullyBalanced(factories[name]().assign(cluster, members))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  describe.each(['sticky', 'cooperative-sticky'])('%s', (name) => {
    const assign = (group: GroupCase): ReturnType<PartitionAssignor['assign']> =>
      factories[name]().assign(group.cluster, name === 'sticky' ? asStickyMembers(group.members) : group.members);

    it("is balanced in both of Kafka's senses, whatever the subscriptions", () => {
      fc.assert(
        fc.property(groupArbitrary(), (group) => {
          const result = assign(group);
          expect(kafkaBalanceViolations(result)).toEqual([]);
          expect(strictBalanceViolations(group.cluster, group.members, result)).toEqual([]);
        }),
        { numRuns: 150 },
      );
    });

    it('moves no partition that balance does not need to move (identical subscriptions, members joining and leaving)', () => {
      fc.assert(
        fc.property(
          groupArbitrary({ uniform: true }),
          fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
          fc.integer({ min: 0, max: 3 }),
          (group, leave, joiners) => {
            const before = assign(group);
            const members = changeMembership(withOwned(group.members, before, 1), leave, joiners);
            const next = { cluster: group.cluster, members };
            let result = assign(next);
            // The cooperative assignor revokes in the first round; what it revokes is what moves.
            const { moved } = movement(next.cluster, members, result);
            expect(moved).toBe(minimalMovesWhenUniform(next.cluster, members));
            if (name === 'cooperative-sticky')
              result = assign({ cluster: next.cluster, members: withOwned(members, result, 1) });
            expect(isFullyBalanced(result)).toBe(true);
          },
        ),
        { numRuns: 150 },
      );
    });

    it('keeps partitions where they are when nothing changes', () => {
      fc.assert(
        fc.property(groupArbitrary(), (group) => {
          const first = assign(group);
          const again = assign({ cluster: group.cluster, members: withOwned(group.members, first, 1) });
          expect(again).toEqual(first);
        }),
        { numRuns: 100 },
      );
    });
  });

  it('cooperative-sticky converges within 4 follow-up rounds, never revoking and assigning a partition in one round', () => {
    const assignor = createCooperativeStickyAssignor();
    fc.assert(
      fc.property(groupArbitrary({ racks: true }), groupArbitrary({ racks: true }), (initial, later) => {
        // Owned partitions from one group state, then a different group (subscriptions, members, counts) rebalances.
        const previous = assignor.assign(initial.cluster, initial.members);
        let members = withOwned(
          later.members,
          Object.fromEntries(
            later.members.map((m, i) => [m.memberId, previous[initial.members[i % initial.members.length].memberId]]),
          ),
          1,
        );
        // Two later members may now claim the same partition (same generation): the assignor must sort that out.
        const cluster = later.cluster;
        // Kafka's rack-aware general path revokes every owned partition whose replicas are not on its
        // owner's rack, in every round, and may hand it back (libs/assignors/README.md, "Upstream
        // behaviour we keep"). So the four follow-ups a group has to settle are counted from the last
        // round whose members owned such a partition; every round, exempt or not, must be safe.
        const maxRounds = 12;
        let lastMismatchedRound = 0;
        for (let round = 0; round <= maxRounds; round++) {
          if (ownsRackMismatchedPartition(cluster, members)) lastMismatchedRound = round;
          if (round - lastMismatchedRound > 4)
            throw new Error(
              `did not converge within 4 follow-up rounds (last rack-mismatched ownership in round ${lastMismatchedRound})`,
            );
          const result = assignor.assign(cluster, members);
          expect(validateAssignment(cluster, members, result, { protocol: 'cooperative' }).violations).toEqual([]);
          // Kafka's test: a round revokes when some member owned a partition it is not assigned now.
          const revokes = members.some((m) => {
            const assigned = new Set(
              (result[m.memberId]?.partitions ?? []).flatMap((e) => e.partitions.map((p) => `${e.topic}-${p}`)),
            );
            return (m.subscription.ownedPartitions ?? []).some((e) =>
              e.partitions.some((p) => !assigned.has(`${e.topic}-${p}`)),
            );
          });
          const complete = validateAssignment(cluster, members, result, { protocol: 'eager' }).valid;
          if (!revokes && complete) {
            expect(kafkaBalanceViolations(result)).toEqual([]);
            return;
          }
          members = withOwned(members, result, 1);
        }
        // Here the group still owned rack-mismatched partitions within the last four rounds: the upstream behaviour above.
      }),
      { numRuns: 200 },
    );
  });
});
