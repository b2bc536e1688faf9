// The group file is how the server-assignors bench hands Kafka's own classes the very group it times
// Cohort on, and reads their assignment back: a group that does not come back as written would make
// the bench time Kafka on another input, or report a match that is not one.
import { compareAssignments, readGroupFile, writeGroupFile, type GroupFile } from './assignor-group-file';

const group: GroupFile = {
  partitionsPerTopic: { orders: 3, 'topic with spaces+plus%': 2, тема: 1 },
  members: [
    {
      memberId: 'member-b',
      subscribedTopics: ['orders', 'topic with spaces+plus%'],
      assignment: [
        { topic: 'orders', partitions: [2, 0] },
        { topic: 'topic with spaces+plus%', partitions: [1] },
      ],
    },
    { memberId: 'member a/é', subscribedTopics: ['тема'], assignment: [] },
    { memberId: 'member-c', subscribedTopics: [], assignment: [{ topic: 'orders', partitions: [1] }] },
  ],
};

describe('assignor group file', () => {
  it('reads back the group as written: topics, members in order, targets in their order', () => {
    expect(readGroupFile(writeGroupFile(group))).toEqual(group);
  });

  it('keeps every name on one token, so a reader splitting on whitespace sees the same fields', () => {
    const memberLine = writeGroupFile(group)
      .split('\n')
      .find((line) => line.startsWith('member member-b'));
    expect(memberLine?.split(' ')).toEqual([
      'member',
      'member-b',
      '2',
      'orders',
      'topic%20with%20spaces%2Bplus%25',
      '2',
      'orders',
      '2',
      '2',
      '0',
      'topic%20with%20spaces%2Bplus%25',
      '1',
      '1',
    ]);
  });

  it("reads a + as a space, as Java's URLEncoder writes names", () => {
    const text = 'cohort-assignor-group 1\nmember my+member 0 1 a+topic 1 4\n';
    expect(readGroupFile(text).members).toEqual([
      { memberId: 'my member', subscribedTopics: [], assignment: [{ topic: 'a topic', partitions: [4] }] },
    ]);
  });

  it('refuses a file that is not a group file or stops mid-line', () => {
    expect(() => readGroupFile('something else\n')).toThrow(/does not start/);
    expect(() => readGroupFile('cohort-assignor-group 1\nmember m 2 a\n')).toThrow(/ends in the middle|number/);
    expect(() => readGroupFile('cohort-assignor-group 1\nmember m x\n')).toThrow(/x where a number belongs/);
  });
});

describe('compareAssignments', () => {
  const ours = { a: [{ topic: 't', partitions: [1, 0] }], b: [] };

  it('is exact when every member lists the same entries in the same order', () => {
    expect(compareAssignments(ours, { b: [], a: [{ topic: 't', partitions: [1, 0] }] })).toEqual({
      exact: true,
      sameSets: true,
      difference: undefined,
    });
  });

  it('tells the same partitions in another order from a different assignment', () => {
    const reordered = compareAssignments(ours, { a: [{ topic: 't', partitions: [0, 1] }], b: [] });
    expect(reordered).toMatchObject({ exact: false, sameSets: true });
    expect(reordered.difference).toMatch(/^a: same partitions in another order/);
    const moved = compareAssignments(ours, {
      a: [{ topic: 't', partitions: [1] }],
      b: [{ topic: 't', partitions: [0] }],
    });
    expect(moved).toMatchObject({ exact: false, sameSets: false });
    expect(moved.difference).toMatch(/^a: ours \[t:0 t:1\], Kafka's \[t:1\]/);
  });

  it('counts a member missing on one side as holding nothing', () => {
    expect(compareAssignments({ a: [] }, {})).toMatchObject({ exact: true, sameSets: true });
    expect(compareAssignments({}, { a: [{ topic: 't', partitions: [0] }] })).toMatchObject({ sameSets: false });
  });
});
