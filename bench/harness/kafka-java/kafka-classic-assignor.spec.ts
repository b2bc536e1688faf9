// How the assignors bench hands a classic group to Kafka's own sticky assignors: the group file holds
// each member's topics and what it owns, and an input the JVM side would rebuild differently (another
// generation, user data that says something else, static members, racks) is refused, not measured.
import { readGroupFile, writeGroupFile } from '../assignor-group-file';
import { assignmentFile, classicGroupFile } from './kafka-classic-assignor';

const cluster = { partitionsPerTopic: { a: 2, b: 1 } };
const owned = [{ topic: 'a', partitions: [1] }];

describe('a classic group as a group file for Kafka', () => {
  it("keeps the members' order, topics and owned partitions", () => {
    const file = classicGroupFile(cluster, [
      { memberId: 'm1', subscription: { topics: ['b', 'a'] } },
      {
        memberId: 'm0',
        subscription: {
          topics: ['a'],
          ownedPartitions: owned,
          generationId: 1,
          userData: { previousAssignment: owned, generation: 1 },
        },
      },
    ]);
    expect(readGroupFile(writeGroupFile(file))).toEqual({
      partitionsPerTopic: { a: 2, b: 1 },
      members: [
        { memberId: 'm1', subscribedTopics: ['b', 'a'], assignment: [] },
        { memberId: 'm0', subscribedTopics: ['a'], assignment: owned },
      ],
    });
  });

  it('refuses a member Kafka would see differently', () => {
    const member = (subscription: object, extra: object = {}) => [
      { memberId: 'm', ...extra, subscription: { topics: ['a'], ...subscription } },
    ];
    expect(() => classicGroupFile(cluster, member({ ownedPartitions: owned, generationId: 2 }))).toThrow(
      /generation 2 where Kafka's side assumes 1/,
    );
    expect(() => classicGroupFile(cluster, member({ generationId: 1 }))).toThrow(/assumes none/);
    expect(() =>
      classicGroupFile(
        cluster,
        member({ ownedPartitions: owned, generationId: 1, userData: { previousAssignment: [], generation: 1 } }),
      ),
    ).toThrow(/user data other than what it owns/);
    expect(() => classicGroupFile(cluster, member({}, { groupInstanceId: 'i' }))).toThrow(/static members/);
    expect(() => classicGroupFile(cluster, member({ rackId: 'r' }))).toThrow(/racks/);
    expect(() => classicGroupFile({ ...cluster, partitionRacks: {} }, member({}))).toThrow(/racks/);
  });

  it("writes Cohort's answer with every member, one that got nothing included", () => {
    const members = [
      { memberId: 'm0', subscription: { topics: ['a'] } },
      { memberId: 'm1', subscription: { topics: ['a'] } },
    ];
    const file = assignmentFile(members, { m0: { partitions: [{ topic: 'a', partitions: [0, 1] }] } });
    expect(readGroupFile(writeGroupFile(file)).members).toEqual([
      { memberId: 'm0', subscribedTopics: [], assignment: [{ topic: 'a', partitions: [0, 1] }] },
      { memberId: 'm1', subscribedTopics: [], assignment: [] },
    ]);
  });
});
