/**
 * The protocol's rules on a request that the transports' DTOs cannot state: the timeouts' ranges, Kafka's
 * legal group.instance.id, distinct protocol names, opaque JSON that can be stored, and a consumer group's
 * subscriptions. The request's shape (types, bounds, required fields) is the transport's: every path into
 * the coordinator validates it first (the socket DTOs in src/gateway/dto, the REST DTOs in src/http/dto),
 * and the coordinator relies on it. Each function returns null when the rules hold, else a message, which
 * the coordinator answers as INVALID_REQUEST.
 */
import type {
  HeartbeatRequest,
  JoinGroupRequest,
  LeaveGroupRequest,
  OffsetCommitRequest,
  SyncGroupRequest,
} from '@cohort/protocol';
import {
  assignmentProblems,
  CONSUMER_PROTOCOL_TYPE,
  INT32_MAX,
  LEGAL_NAME_PATTERN,
  subscriptionProblems,
} from '@cohort/protocol';
import { jsonProblem } from './json-value';

type Check = (problems: string[]) => void;

/** A request full of bad entries is answered with the first few, not a message as large as the request. */
const MAX_REPORTED_PROBLEMS = 10;

function run(checks: Check[]): string | null {
  const problems: string[] = [];
  for (const check of checks) check(problems);
  if (problems.length === 0) return null;
  const more = problems.length - MAX_REPORTED_PROBLEMS;
  return `invalid request: ${problems.slice(0, MAX_REPORTED_PROBLEMS).join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

function integer(value: unknown, field: string, min: number, max: number): Check {
  return (p) =>
    void (
      (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) &&
      p.push(`${field} must be an integer in [${min}, ${max}]`)
    );
}

/** Opaque JSON that can be stored and compared (see json-value.ts). */
function json(value: unknown, field: string): Check {
  return (p) => {
    const problem = jsonProblem(value);
    if (problem !== null) p.push(`${field} must be JSON (${problem})`);
  };
}

/** Kafka's legal group.instance.id (`JoinGroupRequest.validateGroupInstanceId`): a legal topic name. */
function instanceId(value: string | null | undefined, field: string): Check {
  return (p) => {
    if (value === undefined || value === null) return;
    if (!LEGAL_NAME_PATTERN.test(value) || value === '.' || value === '..') {
      p.push(`${field} must be 1-249 characters of [a-zA-Z0-9._-]`);
    }
  };
}

export function validateJoinGroup(r: JoinGroupRequest): string | null {
  return run([
    integer(r.sessionTimeoutMs, 'sessionTimeoutMs', 0, INT32_MAX),
    // Kafka's rebalanceTimeoutMs is a non-nullable int32: absent takes the session timeout, null is refused.
    (p) =>
      void (r.rebalanceTimeoutMs !== undefined && integer(r.rebalanceTimeoutMs, 'rebalanceTimeoutMs', 1, INT32_MAX)(p)),
    instanceId(r.groupInstanceId, 'groupInstanceId'),
    (p) =>
      r.protocols.forEach((protocol, i) => {
        const path = `protocols[${i}].metadata`;
        json(protocol.metadata, path)(p);
        // The coordinator reads a consumer group's metadata as a subscription (topics, owned partitions, rack).
        if (r.protocolType === CONSUMER_PROTOCOL_TYPE) p.push(...subscriptionProblems(protocol.metadata, path));
      }),
    (p) => {
      const names = r.protocols.map((protocol) => protocol.name);
      if (new Set(names).size !== names.length) p.push('protocols must have distinct names');
    },
  ]);
}

export function validateSyncGroup(r: SyncGroupRequest): string | null {
  return run([
    instanceId(r.groupInstanceId, 'groupInstanceId'),
    (p) => r.assignments.forEach((a, i) => json(a.assignment, `assignments[${i}].assignment`)(p)),
  ]);
}

/**
 * A SyncGroup to a `consumer` group: every assignment must be one (the group's protocol type is known
 * only to its shard, so the shard asks once it has found the group).
 */
export function validateConsumerAssignments(assignments: readonly { assignment: unknown }[]): string | null {
  return run([
    (p) =>
      assignments.forEach((entry, i) =>
        p.push(...assignmentProblems(entry.assignment, `assignments[${i}].assignment`)),
      ),
  ]);
}

export function validateHeartbeat(r: HeartbeatRequest): string | null {
  return run([instanceId(r.groupInstanceId, 'groupInstanceId')]);
}

export function validateLeaveGroup(r: LeaveGroupRequest): string | null {
  return run(r.members.map((m, i) => instanceId(m.groupInstanceId, `members[${i}].groupInstanceId`)));
}

export function validateOffsetCommit(r: OffsetCommitRequest): string | null {
  return run([instanceId(r.groupInstanceId, 'groupInstanceId')]);
}
