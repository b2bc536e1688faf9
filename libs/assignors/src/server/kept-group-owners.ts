import type { GroupModel, ModelMember } from './group-model';

/*
 * The kept group model's owner table (`GroupModel.owners`: per topic, each partition's owner number or
 * -1) kept in step as members' targets are read in and out of the model, for kept-uniform-group.ts.
 */

/** Per topic number: 1 for the topics every member subscribes to (that exist). */
export function subscribedFlags(model: GroupModel): Uint8Array {
  const flags = new Uint8Array(model.topics.length);
  for (const topic of model.members[0].subscribed) flags[topic] = 1;
  return flags;
}

/** The partitions `member`'s target holds, or -1 when it holds some of a topic not subscribed to. */
export function ownedTotal(member: ModelMember, subscribed: Uint8Array): number {
  let total = 0;
  for (const { topic, partitions } of member.owned) {
    if (subscribed[topic] !== 1) return -1;
    total += partitions.length;
  }
  return total;
}

/** Clears `member`'s partitions from the owner table where owner number `id` holds them. */
export function clearOwned(owners: (Int32Array | null)[], member: ModelMember, id: number): void {
  for (const { topic, partitions } of member.owned) {
    const owner = owners[topic];
    if (owner === null || owner === undefined) continue;
    for (let k = 0; k < partitions.length; k++) if (owner[partitions[k]] === id) owner[partitions[k]] = -1;
  }
}

/**
 * group-model.ts's markOwned with the member's owner number `id`, answering false (read afresh, which
 * throws) on a partition held twice.
 */
export function markOwned(owners: (Int32Array | null)[], member: ModelMember, id: number, model: GroupModel): boolean {
  for (const { topic, partitions } of member.owned) {
    while (owners.length <= topic) owners.push(null);
    let owner = owners[topic];
    if (owner === null) owner = owners[topic] = new Int32Array(model.topics[topic].partitions).fill(-1);
    for (let k = 0; k < partitions.length; k++) {
      const p = partitions[k];
      if (owner[p] !== -1 && owner[p] !== id) return false;
      owner[p] = id;
    }
  }
  return true;
}
