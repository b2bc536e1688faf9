import type { CoordinatorConfig } from '../ports/coordinator-config';
import type { SharePartitionLimits } from './share-partition';

/** Matches no config: the first read builds the object it then keeps. */
const NO_LIMITS_YET: SharePartitionLimits = Object.freeze({
  deliveryCountLimit: NaN,
  maxRecordLocks: NaN,
  lockDurationMs: NaN,
});

/**
 * The share partitions' limits as the coordinator's config gives them now (it may change while the node
 * runs). They are read several times per acquire and acknowledgement: one object is kept while the
 * config's values stay, not a fresh one per read.
 */
export class ConfiguredShareLimits {
  private kept: SharePartitionLimits = NO_LIMITS_YET;

  constructor(private readonly source: { readonly config: CoordinatorConfig }) {}

  get current(): SharePartitionLimits {
    const { config } = this.source;
    const kept = this.kept;
    if (
      kept.deliveryCountLimit === config.groupShareDeliveryCountLimit &&
      kept.maxRecordLocks === config.groupSharePartitionMaxRecordLocks &&
      kept.lockDurationMs === config.groupShareRecordLockDurationMs
    )
      return kept;
    return (this.kept = Object.freeze({
      deliveryCountLimit: config.groupShareDeliveryCountLimit,
      maxRecordLocks: config.groupSharePartitionMaxRecordLocks,
      lockDurationMs: config.groupShareRecordLockDurationMs,
    }));
  }
}
