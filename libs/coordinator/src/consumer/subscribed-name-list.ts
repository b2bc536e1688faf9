/**
 * A subscription's names as an assignor's list, made once per set (a member keeps its subscription's
 * set until it changes) instead of copied for every member at every target computed (10,000 copies per
 * target while a 10,000-member group forms, 100,000 names per target for a member subscribing to that
 * many); frozen, as every spec made from it shares the list, and so the assignor may keep what it
 * derives from the list (the count of its names) for the next target.
 */
const nameLists = new WeakMap<ReadonlySet<string>, readonly string[]>();

export function subscribedNameList(names: ReadonlySet<string>): readonly string[] {
  let list = nameLists.get(names);
  if (list === undefined) nameLists.set(names, (list = Object.freeze([...names])));
  return list;
}
