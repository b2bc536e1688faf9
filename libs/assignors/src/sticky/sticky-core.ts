/**
 * What StickyAssignor and CooperativeStickyAssignor share (AbstractStickyAssignor.assignPartitions):
 * settle owned partitions, run the constrained algorithm when all subscriptions are equal and the
 * general one otherwise, and, for the cooperative assignor, hold back every partition that changes
 * owner so its current owner can revoke it first.
 */
import type { GroupInput } from '../common/group-input';
import { partitionIdsOf } from '../common/group-input';
import type { RackAwareOptions } from '../common/rack-awareness';
import { constrainedAssign } from './constrained-assign';
import { generalAssign } from './general-assign';
import type { MemberData } from './member-data';
import { resolveOwnedPartitions } from './owned-partitions';
import { StickyRackInfo } from './sticky-rack-info';

export interface StickyOutcome {
  owner: Int32Array;
  /** Kafka's partitionsTransferringOwnership: a map on the constrained path, null on the general one. */
  partitionsTransferringOwnership: Map<number, number> | null;
  /** Which algorithm ran. */
  path: 'constrained' | 'general';
  /** Kafka's isSticky(): no topic saw movements both ways between two members (general path only). */
  isSticky: boolean;
}

export interface StickyOptions extends RackAwareOptions {
  memberData: (subscriptionIndex: number) => MemberData;
  /** The lists memberData returns were left out of validation: check them as they are read. */
  ownedPartitionsUnchecked?: boolean;
}

export function stickyAssign(input: GroupInput, options: StickyOptions): StickyOutcome {
  if (input.members.length === 0)
    return {
      owner: new Int32Array(input.topics.total).fill(-1),
      partitionsTransferringOwnership: new Map(),
      path: 'constrained',
      isSticky: true,
    };
  const prep = resolveOwnedPartitions(input, options.memberData, options.ownedPartitionsUnchecked ?? false);
  const rack = new StickyRackInfo(input, options.preferRackAwareLogic ?? false);
  if (prep.allSubscriptionsEqual) {
    const result = constrainedAssign(input, prep, rack);
    return {
      owner: result.owner,
      partitionsTransferringOwnership: result.transferring,
      path: 'constrained',
      isSticky: true,
    };
  }
  const result = generalAssign(input, prep, rack);
  return {
    owner: result.owner,
    partitionsTransferringOwnership: null,
    path: 'general',
    isSticky: result.movements.isSticky(),
  };
}

/**
 * CooperativeStickyAssignor.adjustAssignment: withhold partitions that change owner. On the general
 * path they are computed as Kafka does, from the raw ownedPartitions of every member: partitions added
 * to someone that someone else is revoking.
 */
export function withholdTransfers(input: GroupInput, outcome: StickyOutcome): Map<number, number> {
  const { owner } = outcome;
  let transferring = outcome.partitionsTransferringOwnership;
  if (transferring === null) {
    transferring = new Map();
    const revoked = new Uint8Array(input.topics.total);
    const listedByOwner = new Uint8Array(input.topics.total);
    input.members.forEach((member, m) => {
      for (const id of partitionIdsOf(member.subscription.ownedPartitions, input.topics, false)) {
        if (owner[id] === m) listedByOwner[id] = 1;
        else revoked[id] = 1;
      }
    });
    for (let id = 0; id < owner.length; id++) {
      if (owner[id] >= 0 && revoked[id] === 1 && listedByOwner[id] === 0) transferring.set(id, owner[id]);
    }
  }
  for (const id of transferring.keys()) owner[id] = -1;
  return transferring;
}
