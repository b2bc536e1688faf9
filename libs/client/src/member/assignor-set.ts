import {
  createCooperativeStickyAssignor,
  createRangeAssignor,
  createRoundRobinAssignor,
  createStickyAssignor,
  isPartitionAssignor,
  supportedProtocolsOf,
  type PartitionAssignor,
  type RebalanceProtocol,
} from '@cohort/assignors';

const BUILT_INS: Record<string, () => PartitionAssignor> = {
  range: createRangeAssignor,
  roundrobin: createRoundRobinAssignor,
  sticky: createStickyAssignor,
  'cooperative-sticky': createCooperativeStickyAssignor,
};

/**
 * The member's assignors and the rebalance protocol they imply. Built-in names get a fresh instance
 * per member (the sticky assignors remember what their member was given). The protocol is chosen as
 * Kafka's ConsumerCoordinator does: the highest protocol every assignor supports, so one eager
 * assignor in the list makes the member eager.
 */
export class AssignorSet {
  readonly assignors: PartitionAssignor[];
  readonly protocol: RebalanceProtocol;
  private readonly builtIn = new Set<PartitionAssignor>();

  constructor(configured: (string | PartitionAssignor)[], serverAssignor: string | null) {
    if (serverAssignor !== null) {
      // The coordinator assigns; the member only needs to know how to give partitions up.
      const known = BUILT_INS[serverAssignor];
      this.assignors = [];
      this.protocol = known && supportedProtocolsOf(known()).includes('cooperative') ? 'cooperative' : 'eager';
      return;
    }
    this.assignors = configured.map((entry) => {
      if (typeof entry === 'string') {
        const create = BUILT_INS[entry];
        if (!create)
          throw new RangeError(
            `unknown assignor '${entry}': built-in names are ${Object.keys(BUILT_INS).join(', ')}; pass other assignors as objects`,
          );
        const assignor = create();
        this.builtIn.add(assignor);
        return assignor;
      }
      if (!isPartitionAssignor(entry))
        throw new RangeError(`an assignor must be a built-in name or an object with a name and an assign function`);
      return entry;
    });
    const names = this.assignors.map((a) => a.name);
    const duplicate = names.find((name, i) => names.indexOf(name) !== i);
    if (duplicate) throw new RangeError(`assignor '${duplicate}' is configured twice`);
    const common = (['cooperative', 'eager'] as const).filter((protocol) =>
      this.assignors.every((a) => supportedProtocolsOf(a).includes(protocol)),
    );
    if (common.length === 0) throw new RangeError(`the assignors ${names.join(', ')} share no rebalance protocol`);
    this.protocol = common[0];
  }

  byName(name: string | null): PartitionAssignor | undefined {
    return this.assignors.find((a) => a.name === name);
  }

  isBuiltIn(assignor: PartitionAssignor): boolean {
    return this.builtIn.has(assignor);
  }
}
