/**
 * Per group, the keys heartbeats of a batch are known by: a member id and, for a static member,
 * `\u0000` and its instance id (a new member taking over an instance is the same member as far as
 * request order goes). One shape for the batch's parked heartbeats, those put off to its next round and
 * those waiting for their answer.
 */
export class MemberKeys {
  private readonly byGroup = new Map<string, Set<string>>();

  add(groupId: string, keys: readonly string[]): void {
    let set = this.byGroup.get(groupId);
    if (!set) this.byGroup.set(groupId, (set = new Set()));
    for (const key of keys) set.add(key);
  }

  /** `keys` go (the group too, once it has none left); false when the group had none. */
  remove(groupId: string, keys: readonly string[]): boolean {
    const set = this.byGroup.get(groupId);
    if (!set) return false;
    for (const key of keys) set.delete(key);
    if (set.size === 0) this.byGroup.delete(groupId);
    return true;
  }

  /** Whether the member, or its instance, is known. */
  has(groupId: string, memberId: string, instanceId?: string | null): boolean {
    const set = this.byGroup.get(groupId);
    return set !== undefined && (set.has(memberId) || (!!instanceId && set.has(instanceKey(instanceId))));
  }

  /** Whether any member of the group is known. */
  hasGroup(groupId: string): boolean {
    return this.byGroup.has(groupId);
  }

  forgetGroup(groupId: string): void {
    this.byGroup.delete(groupId);
  }

  clear(): void {
    this.byGroup.clear();
  }
}

/** The keys of a member: its id and, for a static member, its instance's. */
export function memberKeys(memberId: string, instanceId: string | null | undefined): readonly string[] {
  return instanceId ? [memberId, instanceKey(instanceId)] : [memberId];
}

const instanceKey = (instanceId: string): string => `\u0000${instanceId}`;
