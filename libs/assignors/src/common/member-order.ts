/**
 * Kafka's member order for range and roundrobin (AbstractPartitionAssignor.MemberInfo.compareTo):
 * members with a group.instance.id first, ordered by it; then the others by member id. Keeping static
 * members in instance-id order is what lets them keep their partitions when their member ids change.
 */
import type { GroupInput, GroupMember } from './group-input';

export function compareMembers(a: GroupMember, b: GroupMember): number {
  if (a.groupInstanceId !== null && b.groupInstanceId !== null)
    return compareStrings(a.groupInstanceId, b.groupInstanceId);
  if (a.groupInstanceId !== null) return -1;
  if (b.groupInstanceId !== null) return 1;
  return compareStrings(a.memberId, b.memberId);
}

/** Java's String.compareTo order (UTF-16 code units), which is JavaScript's `<` on strings. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Member indices sorted by Kafka's member order. */
export function membersInKafkaOrder(members: readonly GroupMember[]): number[] {
  return members.map((_, m) => m).sort((a, b) => compareMembers(members[a], members[b]));
}

/** rank[m] = position of member m when members are sorted by member id. */
export function memberIdRanks(members: readonly GroupMember[]): Int32Array {
  const rank = new Int32Array(members.length);
  // Member ids listed in order already cost one pass.
  let sorted = true;
  for (let m = 1; m < members.length && sorted; m++) sorted = members[m - 1].memberId < members[m].memberId;
  if (sorted) {
    for (let m = 0; m < members.length; m++) rank[m] = m;
    return rank;
  }
  // Otherwise the ids are sorted by the built-in default sort (UTF-16 code unit order, Java's
  // compareTo), which compares natively instead of calling a comparator per step; ids are unique.
  const ids = members.map((member) => member.memberId);
  const position = new Map<string, number>();
  const inOrder = ids.slice().sort();
  for (let p = 0; p < inOrder.length; p++) position.set(inOrder[p], p);
  for (let m = 0; m < ids.length; m++) rank[m] = position.get(ids[m]) as number;
  return rank;
}

/** For each topic, the positions in `order` of the members subscribing to it, ascending. */
export function subscriberLists(input: GroupInput, order: readonly number[]): number[][] {
  const lists: number[][] = input.topics.names.map(() => []);
  order.forEach((m, position) => {
    for (const t of input.members[m].topics) lists[t].push(position);
  });
  return lists;
}
