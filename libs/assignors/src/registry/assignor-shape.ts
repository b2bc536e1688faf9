/**
 * Checks that a plugin export really is a PartitionAssignor before it is registered, so a mistake in a
 * plugin shows up at start with the plugin's name instead of in the middle of a rebalance.
 */
import type { PartitionAssignor } from '../api/partition-assignor';

const PROTOCOLS = new Set(['eager', 'cooperative']);

/** Why `candidate` is not an assignor, or null when it is one. */
export function assignorShapeProblem(candidate: unknown): string | null {
  if (typeof candidate !== 'object' || candidate === null)
    return `expected an assignor object, got ${candidate === null ? 'null' : typeof candidate}`;
  const assignor = candidate as Partial<PartitionAssignor>;
  if (typeof assignor.name !== 'string' || assignor.name.trim().length === 0)
    return 'its name must be a non-empty string';
  if (typeof assignor.assign !== 'function') return `'${assignor.name}' has no assign(cluster, members) function`;
  if (assignor.supportedProtocols !== undefined) {
    if (!Array.isArray(assignor.supportedProtocols) || assignor.supportedProtocols.some((p) => !PROTOCOLS.has(p))) {
      return `'${assignor.name}': supportedProtocols must be an array of 'eager' and/or 'cooperative'`;
    }
  }
  for (const hook of ['subscriptionUserData', 'onAssignment'] as const) {
    if (assignor[hook] !== undefined && typeof assignor[hook] !== 'function')
      return `'${assignor.name}': ${hook} must be a function when present`;
  }
  return null;
}

export function isPartitionAssignor(candidate: unknown): candidate is PartitionAssignor {
  return assignorShapeProblem(candidate) === null;
}
