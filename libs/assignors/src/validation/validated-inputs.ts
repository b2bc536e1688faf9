/**
 * Inputs the runner has just validated, so a built-in assignor it calls does not validate the same
 * million owned partitions a second time. A mark lives only for the duration of the runner's call
 * (withValidatedInput removes it afterwards), so an input changed after a run is checked again.
 */
import type { ClusterView, MemberSubscription } from '../api/partition-assignor';

const validated = new WeakMap<readonly MemberSubscription[], ClusterView>();

export function withValidatedInput<T>(cluster: ClusterView, members: readonly MemberSubscription[], run: () => T): T {
  validated.set(members, cluster);
  try {
    return run();
  } finally {
    validated.delete(members);
  }
}

/** True while a runner call that validated exactly this (cluster, members) pair is under way. */
export function isValidatedInput(cluster: ClusterView, members: readonly MemberSubscription[]): boolean {
  return validated.get(members) === cluster;
}
