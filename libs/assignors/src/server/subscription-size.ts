/**
 * How many distinct names a member's subscription holds, those of topics that do not exist included:
 * Kafka's `TopicIds.size()`, which sizes the hash sets Kafka's assignors copy a subscription into, and
 * so decides the order they walk its topics in. Kept per frozen list (the coordinator shares one list
 * per subscription and never changes it), so a subscription of 100,000 names is counted once, not at
 * every assignment; a list in ascending order (the coordinator's, as its records list the names) has
 * no name twice, which one pass tells without a set of them all.
 */
const counted = new WeakMap<readonly string[], number>();

export function distinctNameCount(names: readonly string[]): number {
  if (names.length < 2) return names.length;
  let count = counted.get(names);
  if (count === undefined) {
    count = ascending(names) ? names.length : new Set(names).size;
    if (Object.isFrozen(names)) counted.set(names, count);
  }
  return count;
}

function ascending(names: readonly string[]): boolean {
  for (let i = 1; i < names.length; i++) if (!(names[i - 1] < names[i])) return false;
  return true;
}
