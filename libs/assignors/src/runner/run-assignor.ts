/**
 * Runs an assignor so that nothing it does can hurt the caller: the input is validated first
 * (KafkaError INVALID_REQUEST naming the bad field), a plugin gets its own copy of the input, and its
 * output is validated before anyone uses it. A plugin that throws or returns an invalid assignment
 * produces an AssignorError with a clear message; it never crashes the node or yields a silently
 * wrong assignment.
 */
import type { MemberAssignment } from '@cohort/protocol';
import {
  supportedProtocolsOf,
  type ClusterView,
  type MemberSubscription,
  type PartitionAssignor,
  type RebalanceProtocol,
} from '../api/partition-assignor';
import { validateAssignment } from '../validation/validate-assignment';
import { validateAssignorInput, type InputValidationOptions } from '../validation/validate-input';
import { withValidatedInput } from '../validation/validated-inputs';
import { getOwn, setOwn } from '../common/own-property';
import { AssignorError } from './assignor-error';

export interface RunAssignorOptions extends InputValidationOptions {
  /** The group's rebalance protocol; defaults to cooperative when the assignor supports it. */
  protocol?: RebalanceProtocol;
  /** Give the assignor a deep copy of the input (default true; built-ins are trusted not to mutate it). */
  isolateInput?: boolean;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return 'an unprintable value';
  }
}

/** A fresh, plain copy of a validated result, so later mutation by the plugin cannot reach the caller. */
function copyResult(
  result: Record<string, MemberAssignment>,
  members: readonly MemberSubscription[],
): Record<string, MemberAssignment> {
  const copy: Record<string, MemberAssignment> = {};
  for (const member of members) {
    const entry = getOwn(result, member.memberId)!;
    const partitions = entry.partitions.map((item) => ({ topic: item.topic, partitions: [...item.partitions] }));
    setOwn(
      copy,
      member.memberId,
      entry.userData === undefined
        ? { partitions }
        : { partitions, userData: JSON.parse(JSON.stringify(entry.userData)) as unknown },
    );
  }
  return copy;
}

export function runAssignor(
  assignor: PartitionAssignor,
  cluster: ClusterView,
  members: MemberSubscription[],
  options: RunAssignorOptions = {},
): Record<string, MemberAssignment> {
  validateAssignorInput(cluster, members, options);
  const name = typeof assignor?.name === 'string' ? assignor.name : '(unnamed)';
  const protocol =
    options.protocol ?? (supportedProtocolsOf(assignor).includes('cooperative') ? 'cooperative' : 'eager');
  const isolate = options.isolateInput ?? true;
  const input = isolate ? structuredClone({ cluster, members }) : { cluster, members };
  let result: unknown;
  try {
    result = isolate
      ? assignor.assign(input.cluster, input.members)
      : withValidatedInput(cluster, members, () => assignor.assign(cluster, members));
  } catch (error) {
    throw new AssignorError(name, 'threw', `assignor '${name}' failed: ${describeError(error)}`, [], error);
  }
  const validation = validateAssignment(cluster, members, result, { protocol });
  if (!validation.valid) {
    const more =
      validation.violationCount > validation.violations.length
        ? ` (and ${validation.violationCount - validation.violations.length} more)`
        : '';
    throw new AssignorError(
      name,
      'invalid-assignment',
      `assignor '${name}' returned an invalid assignment: ${validation.violations.join('; ')}${more}`,
      validation.violations,
    );
  }
  return isolate
    ? copyResult(result as Record<string, MemberAssignment>, members)
    : (result as Record<string, MemberAssignment>);
}
