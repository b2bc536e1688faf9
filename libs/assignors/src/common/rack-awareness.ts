/**
 * KIP-881's switch (AbstractPartitionAssignor.useRackAwareAssignment): rack-aware assignment is used
 * only when some consumer has a rack, consumer and replica racks intersect, and some partition's
 * replica racks differ from the union of all of them (if every partition is on every rack, matching
 * racks gains nothing). `preferRackAwareLogic` skips the last condition; Kafka keeps it for its tests
 * and so do we.
 */
export function useRackAwareAssignment(
  consumerRacks: ReadonlySet<string>,
  partitionRacks: ReadonlySet<string>,
  racksPerPartition: Iterable<ReadonlySet<string>>,
  preferRackAwareLogic = false,
): boolean {
  if (consumerRacks.size === 0) return false;
  let intersects = false;
  for (const rack of consumerRacks) {
    if (partitionRacks.has(rack)) {
      intersects = true;
      break;
    }
  }
  if (!intersects) return false;
  if (preferRackAwareLogic) return true;
  for (const racks of racksPerPartition) {
    if (racks.size !== partitionRacks.size) return true;
    for (const rack of racks) if (!partitionRacks.has(rack)) return true;
  }
  return false;
}

/** Options Kafka exposes only to its tests; production code leaves them unset. */
export interface RackAwareOptions {
  preferRackAwareLogic?: boolean;
}
