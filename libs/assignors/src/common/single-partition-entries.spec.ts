import type { MemberSubscription } from '../api/partition-assignor';
import { createCooperativeStickyAssignor } from '../sticky/cooperative-sticky-assignor';
import { createRangeAssignor } from '../range/range-assignor';
import { assignmentFromOwners } from './assignment-output';
import { readGroup } from './group-input';
import { SinglePartitionPool } from './single-partition-entries';

const members = (count: number, topics: string[]): MemberSubscription[] =>
  Array.from({ length: count }, (_, m) => ({ memberId: `c${m}`, subscription: { topics } }));

describe('assignment results: frozen entries, one-partition entries shared', () => {
  const cluster = { partitionsPerTopic: { a: 4, b: 4 } };

  it('gives two calls the same one-partition entry objects, and nobody can change them', () => {
    const assignor = createCooperativeStickyAssignor();
    const first = assignor.assign(cluster, members(4, ['a', 'b']));
    const second = assignor.assign(cluster, members(4, ['a', 'b']));
    expect(second).toEqual(first);
    expect(second.c0.partitions[0]).toBe(first.c0.partitions[0]);
    const entry = first.c0.partitions[0];
    expect(() => entry.partitions.push(3)).toThrow(TypeError);
    expect(() => {
      (entry as { topic: string }).topic = 'x';
    }).toThrow(TypeError);
    expect(second.c0.partitions[0]).toEqual({ topic: 'a', partitions: [0] });
    // The member lists and the result itself are each caller's own.
    expect(second.c0.partitions).not.toBe(first.c0.partitions);
    second.c0.partitions.push({ topic: 'b', partitions: [9] });
    expect(first.c0.partitions).toHaveLength(2);
  });

  it('freezes entries with several partitions too, without sharing them between calls', () => {
    const assignor = createRangeAssignor();
    const first = assignor.assign(cluster, members(2, ['a']));
    const second = assignor.assign(cluster, members(2, ['a']));
    expect(first.c0.partitions).toEqual([{ topic: 'a', partitions: [0, 1] }]);
    expect(second.c0.partitions[0]).not.toBe(first.c0.partitions[0]);
    expect(() => first.c0.partitions[0].partitions.sort((x, y) => y - x)).toThrow(TypeError);
    expect(first.c0.partitions[0].partitions).toEqual([0, 1]);
  });

  it('gives a result whose entries all hold one partition the same frozen entries from a fresh pool and a filled one', () => {
    const pool = new SinglePartitionPool();
    const input = readGroup({ partitionsPerTopic: { a: 4, b: 4 } }, members(4, ['a', 'b']));
    // Member m owns partition m of both topics; partition 3 of b is withheld (no owner).
    const owner = Int32Array.from([0, 1, 2, 3, 0, 1, 2, -1]);
    const first = assignmentFromOwners(input, owner, pool);
    const second = assignmentFromOwners(input, owner, pool);
    expect(first.c3.partitions).toEqual([{ topic: 'a', partitions: [3] }]);
    expect(first.c0.partitions).toEqual([
      { topic: 'a', partitions: [0] },
      { topic: 'b', partitions: [0] },
    ]);
    expect(second).toEqual(first);
    expect(second.c1.partitions[1]).toBe(first.c1.partitions[1]);
    expect(Object.isFrozen(first.c1.partitions[1])).toBe(true);
    expect(Object.isFrozen(first.c1.partitions[1].partitions)).toBe(true);
  });

  it('hands out one-partition entries one by one when a topic is too large for the pool', () => {
    const pool = new SinglePartitionPool(4);
    const input = readGroup({ partitionsPerTopic: { a: 3 } }, members(3, ['a']));
    const owner = Int32Array.from([2, 0, 1]);
    const result = assignmentFromOwners(input, owner, pool);
    expect(result).toEqual({
      c0: { partitions: [{ topic: 'a', partitions: [1] }] },
      c1: { partitions: [{ topic: 'a', partitions: [2] }] },
      c2: { partitions: [{ topic: 'a', partitions: [0] }] },
    });
    expect(Object.isFrozen(result.c0.partitions[0])).toBe(true);
  });

  it('stays bounded: a full pool starts again and results stay correct', () => {
    const pool = new SinglePartitionPool(6);
    const input = readGroup({ partitionsPerTopic: { a: 3, b: 3, c: 3 } }, members(3, ['a', 'b', 'c']));
    // Member m owns partition m of every topic: nine one-partition entries plus three arrays.
    const owner = Int32Array.from({ length: 9 }, (_, id) => id % 3);
    const result = assignmentFromOwners(input, owner, pool);
    expect(pool.size).toBeLessThanOrEqual(6);
    for (let m = 0; m < 3; m++) {
      expect(result[`c${m}`].partitions).toEqual(['a', 'b', 'c'].map((topic) => ({ topic, partitions: [m] })));
    }
    const again = assignmentFromOwners(input, owner, pool);
    expect(again).toEqual(result);
    expect(pool.size).toBeLessThanOrEqual(6);
  });
});
