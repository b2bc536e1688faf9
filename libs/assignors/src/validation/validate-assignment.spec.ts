import type { MemberSubscription } from '../api/partition-assignor';
import { validateAssignment } from './validate-assignment';

const cluster = { partitionsPerTopic: { t: 3, u: 1 } };
const members: MemberSubscription[] = [
  { memberId: 'a', subscription: { topics: ['t'], ownedPartitions: [{ topic: 't', partitions: [0, 1] }] } },
  { memberId: 'b', subscription: { topics: ['t', 'u'], ownedPartitions: [{ topic: 't', partitions: [2] }] } },
];

describe('assignment validation', () => {
  it('accepts a complete, valid assignment', () => {
    const result = {
      a: { partitions: [{ topic: 't', partitions: [0, 1] }] },
      b: {
        partitions: [
          { topic: 't', partitions: [2] },
          { topic: 'u', partitions: [0] },
        ],
      },
    };
    expect(validateAssignment(cluster, members, result)).toEqual({ valid: true, violationCount: 0, violations: [] });
  });

  it('names every kind of violation', () => {
    const result = {
      a: {
        partitions: [
          { topic: 't', partitions: [0, 0, 7] },
          { topic: 'u', partitions: [0] },
        ],
      },
      ghost: { partitions: [] },
    };
    const validation = validateAssignment(cluster, members, result);
    expect(validation.valid).toBe(false);
    expect(validation.violations).toEqual([
      "member 'ghost' is not in the group",
      "t-0 is assigned twice (to 'a' and 'a')",
      "member 'a' is assigned t-7, which does not exist",
      "member 'a' is assigned u-0 but does not subscribe to 'u'",
      "member 'b' has no assignment (every member needs one, possibly empty)",
      't-1 is subscribed but assigned to nobody',
      't-2 is subscribed but assigned to nobody',
    ]);
  });

  it('rejects results that are not objects', () => {
    expect(validateAssignment(cluster, members, null).violations).toEqual([
      'the result must be an object of member id → { partitions }, got null',
    ]);
    expect(validateAssignment(cluster, members, [1]).violations[0]).toContain('got an array');
  });

  it('lets a cooperative round leave a revoked partition unassigned but not move it in the same round', () => {
    const withheld = {
      a: { partitions: [{ topic: 't', partitions: [0] }] },
      b: {
        partitions: [
          { topic: 't', partitions: [2] },
          { topic: 'u', partitions: [0] },
        ],
      },
    };
    expect(validateAssignment(cluster, members, withheld, { protocol: 'cooperative' }).valid).toBe(true);
    expect(validateAssignment(cluster, members, withheld, { protocol: 'eager' }).violations).toEqual([
      't-1 is subscribed but assigned to nobody',
    ]);
    const moved = {
      a: { partitions: [{ topic: 't', partitions: [0] }] },
      b: {
        partitions: [
          { topic: 't', partitions: [1, 2] },
          { topic: 'u', partitions: [0] },
        ],
      },
    };
    expect(validateAssignment(cluster, members, moved, { protocol: 'cooperative' }).violations).toEqual([
      "t-1 moves to 'b' in the same round as it is revoked, which the cooperative protocol forbids",
    ]);
    expect(validateAssignment(cluster, members, moved, { protocol: 'eager' }).valid).toBe(true);
  });
});
