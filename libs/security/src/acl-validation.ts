import { isIP } from 'node:net';
import {
  ACL_OPERATIONS,
  ACL_PERMISSIONS,
  type AclBinding,
  type AclBindingFilter,
  CLUSTER_RESOURCE_NAME,
  KafkaError,
  PATTERN_TYPES,
  RESOURCE_TYPES,
  WILDCARD_RESOURCE,
} from '@cohort/protocol';
import { SUPPORTED_OPERATIONS } from './operations';

/** Longest principal or resource name a binding may carry (group ids are bounded the same way on the wire). */
export const MAX_ACL_NAME_LENGTH = 1_024;

const FIELDS = ['principal', 'host', 'resourceType', 'resourceName', 'patternType', 'operation', 'permission'] as const;
type Field = (typeof FIELDS)[number];
const FIELD_SET: ReadonlySet<string> = new Set(FIELDS);

/**
 * Checks one binding as Kafka's AclControlManager.validateNewAcl does, and more strictly where a
 * mistake would silently match nothing: every field present and of its type, a `User:<name>`
 * principal, a host of `*` or one IP address, an operation the resource type supports, the cluster
 * named `kafka-cluster` with a LITERAL pattern. Returns a copy with exactly the binding's fields;
 * throws INVALID_REQUEST naming every problem at `path`.
 */
export function validateBinding(value: unknown, path: string): AclBinding {
  const problems = fieldProblems(value, path, false);
  if (problems.length === 0) {
    const binding = value as AclBinding;
    problems.push(...combinationProblems(binding, path));
  }
  if (problems.length > 0) throw KafkaError.of('INVALID_REQUEST', `invalid ACL binding: ${problems.join('; ')}`);
  return pick(value as AclBinding) as AclBinding;
}

/** A filter: the same fields, each optional; given fields are checked as in a binding. */
export function validateFilter(value: unknown, path: string): AclBindingFilter {
  const problems = fieldProblems(value, path, true);
  if (problems.length > 0) throw KafkaError.of('INVALID_REQUEST', `invalid ACL filter: ${problems.join('; ')}`);
  return pick(value as AclBindingFilter);
}

function fieldProblems(value: unknown, path: string, optional: boolean): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path} must be an object`];
  const record = value as Record<string, unknown>;
  const problems = Object.keys(record)
    .filter((key) => !FIELD_SET.has(key))
    .map((key) => `${path}.${key} is not a field of a binding (fields: ${FIELDS.join(', ')})`);
  for (const field of FIELDS) {
    const given = record[field];
    if (given === undefined) {
      if (!optional) problems.push(`${path}.${field} is required`);
      continue;
    }
    const problem = fieldProblem(field, given);
    if (problem) problems.push(`${path}.${field} ${problem}`);
  }
  return problems;
}

function fieldProblem(field: Field, value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  switch (field) {
    case 'principal':
      return /^User:.+$/s.test(value) && value.length <= MAX_ACL_NAME_LENGTH
        ? null
        : `must be 'User:<name>' (e.g. User:alice, or User:* for everyone), at most ${MAX_ACL_NAME_LENGTH} characters`;
    case 'host':
      return value === '*' || isIP(value) !== 0 ? null : "must be '*' or one IP address";
    case 'resourceType':
      return oneOf(value, RESOURCE_TYPES);
    case 'resourceName':
      return value.length >= 1 && value.length <= MAX_ACL_NAME_LENGTH
        ? null
        : `must be 1-${MAX_ACL_NAME_LENGTH} characters`;
    case 'patternType':
      return oneOf(value, PATTERN_TYPES);
    case 'operation':
      return oneOf(value, ACL_OPERATIONS);
    case 'permission':
      return oneOf(value, ACL_PERMISSIONS);
  }
}

function combinationProblems(binding: AclBinding, path: string): string[] {
  const problems: string[] = [];
  const supported = SUPPORTED_OPERATIONS[binding.resourceType];
  if (!supported.includes(binding.operation)) {
    problems.push(
      `${path}.operation ${binding.operation} does not apply to ${binding.resourceType} (one of ${supported.join(', ')})`,
    );
  }
  if (
    binding.resourceType === 'CLUSTER' &&
    (binding.resourceName !== CLUSTER_RESOURCE_NAME || binding.patternType !== 'LITERAL')
  ) {
    problems.push(`${path}: the CLUSTER resource is LITERAL '${CLUSTER_RESOURCE_NAME}'`);
  }
  if (binding.patternType === 'PREFIXED' && binding.resourceName === WILDCARD_RESOURCE) {
    problems.push(
      `${path}: for every ${binding.resourceType.toLowerCase()} use patternType LITERAL with resourceName '*'`,
    );
  }
  return problems;
}

function oneOf(value: string, allowed: readonly string[]): string | null {
  return allowed.includes(value) ? null : `must be one of ${allowed.join(', ')}`;
}

function pick<T extends AclBindingFilter>(value: T): T {
  const copy: AclBindingFilter = {};
  for (const field of FIELDS) if (value[field] !== undefined) (copy as Record<string, unknown>)[field] = value[field];
  return copy as T;
}
