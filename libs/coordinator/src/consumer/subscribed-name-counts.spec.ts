import { SeededRandom } from '@cohort/replication';
import { SubscribedNameCounts } from './subscribed-name-counts';

describe('a group’s subscriber counts per topic name', () => {
  it('count each name once per member that subscribes to it, through joins, changes and leaves', () => {
    const seeded = new SeededRandom(5);
    const random = (bound: number) => seeded.int(bound);
    const counts = new SubscribedNameCounts();
    const members = new Map<number, ReadonlySet<string>>();
    for (let step = 0; step < 2000; step++) {
      const id = random(8);
      const before = members.get(id);
      // Often the same names as before in a set of their own (a record that rewrites the member).
      const after =
        random(4) === 0
          ? undefined
          : random(3) === 0 && before
            ? new Set(before)
            : new Set(Array.from({ length: random(6) }, () => `t${random(10)}`));
      const version = counts.version;
      counts.replace(before, after);
      if (after) members.set(id, after);
      else members.delete(id);
      const expected = new Map<string, number>();
      for (const names of members.values()) for (const name of names) expected.set(name, (expected.get(name) ?? 0) + 1);
      expect(new Map([...counts.counts].sort())).toEqual(new Map([...expected].sort()));
      // The version moves exactly when a count changed.
      const [was, is] = [before ?? new Set<string>(), after ?? new Set<string>()];
      const same = was.size === is.size && [...was].every((name) => is.has(name));
      expect(counts.version === version).toBe(same);
    }
  });

  it('count again only the names a change adds or drops, however many the member subscribes to', () => {
    const counts = new SubscribedNameCounts();
    const names = Array.from({ length: 10_000 }, (_, i) => `missing-${i}`);
    const before = new Set(names);
    counts.replace(undefined, before);
    const set = jest.spyOn(counts.counts, 'set');
    const deleted = jest.spyOn(counts.counts, 'delete');
    // The member's assignment changes: its record keeps the very same set of names.
    counts.replace(before, before);
    // Its rack changes: the record rewrites the same names into a set of their own.
    const rewritten = new Set(names);
    counts.replace(before, rewritten);
    expect(set).not.toHaveBeenCalled();
    expect(deleted).not.toHaveBeenCalled();
    // One name replaced by another.
    counts.replace(rewritten, new Set([...names.slice(1), 'orders']));
    expect(set.mock.calls.length + deleted.mock.calls.length).toBe(2);
    expect(counts.counts.has('missing-0')).toBe(false);
    expect(counts.counts.get('orders')).toBe(1);
  });
});
