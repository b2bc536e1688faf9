/**
 * Step 1 of both sticky assignors (AbstractStickyAssignor.allSubscriptionsEqual):
 * decide between the constrained and the general algorithm, and settle which member may keep which
 * previously owned partition when several claim it: the newer generation wins, equal generations
 * mean nobody keeps it. Members are visited in the order Java's HashMap would visit them, because
 * with three or more claimants the outcome depends on it.
 */
import { checkedPartitionIdsOf } from '../common/checked-partition-ids';
import { javaHashMapOrder } from '../common/java-order';
import { partitionIdsOf, type GroupInput } from '../common/group-input';
import { throwInvalidOwnedPartitions } from '../validation/validate-input';
import { DEFAULT_GENERATION, fieldGeneration, type MemberData } from './member-data';

// Read once here rather than at each use, which is a getter call per member (see common/group-input.ts).
const idsOfPartitions = partitionIdsOf;
const checkedIdsOfPartitions = checkedPartitionIdsOf;
const NO_GENERATION = DEFAULT_GENERATION;

export interface OwnedPartitions {
  /** Every member subscribes to the same topics. */
  readonly allSubscriptionsEqual: boolean;
  /** Member indices in Java HashMap iteration order. */
  readonly hashOrder: number[];
  /** Per member: the previously owned partitions it may keep, in the order it listed them. */
  readonly owned: number[][];
  /** Partitions claimed by two members of the same generation (null: none). */
  readonly multiplyClaimed: Uint8Array | null;
  /** Per member: its member data, as the assignor reads it. */
  readonly memberData: MemberData[];
  readonly maxGeneration: number;
}

function sameTopics(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a === b) return true; // readGroup shares one set between identical subscriptions
  if (a.size !== b.size) return false;
  for (const topic of a) if (!b.has(topic)) return false;
  return true;
}

/**
 * Who claims each partition, member by member. A claim is settled as it is read; the per-member work
 * is a method of its own so that it is compiled after a few members, also on a process's first
 * rebalance, instead of running the whole group through one long loop in the interpreter.
 */
class ClaimTable {
  readonly claimant: Int32Array;
  readonly keeper: Int32Array;
  multiplyClaimed: Uint8Array | null = null;
  /** Some partition was listed twice or claimed by two members: the lists need compacting. */
  contested = false;

  constructor(
    private readonly members: GroupInput['members'],
    total: number,
  ) {
    this.claimant = new Int32Array(total).fill(-1);
    this.keeper = new Int32Array(total).fill(-1);
  }

  claim(m: number, ids: readonly number[], generation: number): void {
    const { claimant, keeper } = this;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      const other = claimant[id];
      if (other < 0) {
        keeper[id] = m;
        claimant[id] = m;
        continue;
      }
      this.contested = true;
      if (other === m) continue; // listed twice by the same member
      // Kafka compares with the other claimant's subscription generationId field, not its member data.
      const otherGeneration = fieldGeneration(this.members[other].subscription);
      if (generation === otherGeneration) {
        (this.multiplyClaimed ??= new Uint8Array(claimant.length))[id] = 1;
        if (keeper[id] === other) keeper[id] = -1;
        claimant[id] = m;
      } else if (generation > otherGeneration) {
        keeper[id] = m;
        claimant[id] = m;
      }
    }
  }

  /** Keeps each partition once, where its keeper first listed it; the lists are compacted in place. */
  keepSettled(claims: number[][]): void {
    const keeper = this.keeper;
    for (let m = 0; m < claims.length; m++) {
      const ids = claims[m];
      let kept = 0;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i];
        if (keeper[id] !== m) continue;
        keeper[id] = -2;
        ids[kept++] = id;
      }
      ids.length = kept;
    }
  }
}

/**
 * `listsUnchecked`: the members' lists were left out of validation (validateAssignorInputButOwnedPartitions)
 * and are checked here as they are read, and reported as the validator would report them.
 */
export function resolveOwnedPartitions(
  input: GroupInput,
  readMemberData: (m: number) => MemberData,
  listsUnchecked = false,
): OwnedPartitions {
  const { members, topics } = input;
  const hashOrder = javaHashMapOrder(members.map((member) => member.memberId));
  // Allocated on the first claim: a group joining for the first time owns nothing.
  let table: ClaimTable | null = null;
  const claims: number[][] = new Array<number[]>(members.length);
  const memberData: MemberData[] = new Array(members.length);
  let allSubscriptionsEqual = true;
  let reference: ReadonlySet<string> | null = null;
  let maxGeneration = NO_GENERATION;
  for (let k = 0; k < hashOrder.length; k++) {
    const m = hashOrder[k];
    // Deviation (quirk Q1): Kafka takes the first non-empty subscription as the reference, so an
    // empty subscription could be judged equal to a non-empty one; we compare every set exactly.
    // readGroup shares one set between identical subscriptions, so most are told equal without a call.
    const topicNameSet = members[m].topicNameSet;
    if (reference === null) reference = topicNameSet;
    else if (allSubscriptionsEqual && reference !== topicNameSet && !sameTopics(reference, topicNameSet))
      allSubscriptionsEqual = false;
    const data = readMemberData(m);
    memberData[m] = data;
    const generation = data.generation ?? NO_GENERATION;
    if (generation > maxGeneration) maxGeneration = generation;
    const ids = listsUnchecked
      ? checkedIdsOfPartitions(data.partitions, topics)
      : idsOfPartitions(data.partitions, topics, false);
    if (ids === null) throwInvalidOwnedPartitions(members);
    claims[m] = ids;
    if (ids.length > 0) (table ??= new ClaimTable(members, topics.total)).claim(m, ids, generation);
  }
  // Uncontested claims are kept as listed; otherwise each partition stays with its keeper only.
  if (table !== null && table.contested) table.keepSettled(claims);
  return {
    allSubscriptionsEqual,
    hashOrder,
    owned: claims,
    multiplyClaimed: table === null ? null : table.multiplyClaimed,
    memberData,
    maxGeneration,
  };
}
