/**
 * Shape checks on requests, so that input that slipped past the transport's DTOs (or comes from another
 * caller) gets INVALID_REQUEST naming the bad fields instead of corrupting state. Each function returns
 * null when the request is well formed, else a message.
 */
import { assignmentProblems, CONSUMER_PROTOCOL_TYPE, INT32_MAX, subscriptionProblems } from '@cohort/protocol';
import { jsonProblem } from './json-value';

type Check = (problems: string[]) => void;

/** Kafka's legal group.instance.id: like a topic name, at most 249 of [a-zA-Z0-9._-]. */
const LEGAL_INSTANCE_ID = /^[a-zA-Z0-9._-]{1,249}$/;

/** A request full of bad entries is answered with the first few, not a message as large as the request. */
const MAX_REPORTED_PROBLEMS = 10;

function run(checks: Check[]): string | null {
  const problems: string[] = [];
  for (const check of checks) check(problems);
  if (problems.length === 0) return null;
  const more = problems.length - MAX_REPORTED_PROBLEMS;
  return `invalid request: ${problems.slice(0, MAX_REPORTED_PROBLEMS).join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function string(value: unknown, field: string): Check {
  return (p) => void (typeof value !== 'string' && p.push(`${field} must be a string`));
}

function optionalString(value: unknown, field: string): Check {
  return (p) =>
    void (
      value !== undefined &&
      value !== null &&
      typeof value !== 'string' &&
      p.push(`${field} must be a string or null`)
    );
}

function integer(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): Check {
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

function instanceId(value: unknown, field: string): Check {
  return (p) => {
    if (value === undefined || value === null) return;
    if (typeof value !== 'string' || !LEGAL_INSTANCE_ID.test(value) || value === '.' || value === '..') {
      p.push(`${field} must be 1-249 characters of [a-zA-Z0-9._-]`);
    }
  };
}

function array(value: unknown, field: string, each: (item: unknown, path: string) => Check[]): Check {
  return (p) => {
    if (!Array.isArray(value)) return void p.push(`${field} must be an array`);
    value.forEach((item, i) => {
      for (const check of each(item, `${field}[${i}]`)) check(p);
    });
  };
}

function object(value: unknown, field: string, fields: (o: Record<string, unknown>) => Check[]): Check[] {
  if (!isObject(value)) return [(p) => void p.push(`${field} must be an object`)];
  return fields(value);
}

export function validateJoinGroup(r: unknown): string | null {
  return run(
    object(r, 'request', (o) => [
      string(o.groupId, 'groupId'),
      string(o.memberId, 'memberId'),
      integer(o.sessionTimeoutMs, 'sessionTimeoutMs', 0, INT32_MAX),
      (p) =>
        void (
          o.rebalanceTimeoutMs !== undefined && integer(o.rebalanceTimeoutMs, 'rebalanceTimeoutMs', 1, INT32_MAX)(p)
        ),
      instanceId(o.groupInstanceId, 'groupInstanceId'),
      string(o.protocolType, 'protocolType'),
      array(o.protocols, 'protocols', (item, path) =>
        object(item, path, (pr) => [
          string(pr.name, `${path}.name`),
          json(pr.metadata, `${path}.metadata`),
          // The coordinator reads a consumer group's metadata as a subscription (topics, owned partitions, rack).
          (p) =>
            void (
              o.protocolType === CONSUMER_PROTOCOL_TYPE &&
              p.push(...subscriptionProblems(pr.metadata, `${path}.metadata`))
            ),
        ]),
      ),
      (p) => {
        if (!Array.isArray(o.protocols)) return;
        const names = o.protocols.map((pr) => (isObject(pr) ? pr.name : undefined));
        if (new Set(names).size !== names.length) p.push('protocols must have distinct names');
      },
      optionalString(o.reason, 'reason'),
      optionalString(o.serverAssignor, 'serverAssignor'),
    ]),
  );
}

export function validateSyncGroup(r: unknown): string | null {
  return run(
    object(r, 'request', (o) => [
      ...memberOfGeneration(o),
      optionalString(o.protocolType, 'protocolType'),
      optionalString(o.protocolName, 'protocolName'),
      array(o.assignments, 'assignments', (item, path) =>
        object(item, path, (a) => [string(a.memberId, `${path}.memberId`), json(a.assignment, `${path}.assignment`)]),
      ),
    ]),
  );
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

export function validateHeartbeat(r: unknown): string | null {
  return run(object(r, 'request', memberOfGeneration));
}

/** The fields by which SyncGroup and Heartbeat name a member of a generation. */
function memberOfGeneration(o: Record<string, unknown>): Check[] {
  return [
    string(o.groupId, 'groupId'),
    integer(o.generationId, 'generationId', -1, INT32_MAX),
    string(o.memberId, 'memberId'),
    instanceId(o.groupInstanceId, 'groupInstanceId'),
  ];
}

export function validateLeaveGroup(r: unknown): string | null {
  return run(
    object(r, 'request', (o) => [
      string(o.groupId, 'groupId'),
      array(o.members, 'members', (item, path) =>
        object(item, path, (m) => [
          string(m.memberId, `${path}.memberId`),
          instanceId(m.groupInstanceId, `${path}.groupInstanceId`),
          optionalString(m.reason, `${path}.reason`),
        ]),
      ),
    ]),
  );
}

function topicPartitionsCheck(
  topics: unknown,
  partitionFields: (p: Record<string, unknown>, path: string) => Check[],
): Check {
  return array(topics, 'topics', (item, path) =>
    object(item, path, (t) => [
      string(t.name, `${path}.name`),
      array(t.partitions, `${path}.partitions`, (pp, ppath) => object(pp, ppath, (x) => partitionFields(x, ppath))),
    ]),
  );
}

export function validateOffsetCommit(r: unknown): string | null {
  return run(
    object(r, 'request', (o) => [
      string(o.groupId, 'groupId'),
      integer(o.generationId, 'generationId', -1, INT32_MAX),
      optionalString(o.memberId, 'memberId'),
      instanceId(o.groupInstanceId, 'groupInstanceId'),
      topicPartitionsCheck(o.topics, (x, path) => [
        integer(x.partitionIndex, `${path}.partitionIndex`, 0, INT32_MAX),
        integer(x.committedOffset, `${path}.committedOffset`, -1),
        (p) =>
          void (
            x.committedLeaderEpoch !== undefined &&
            integer(x.committedLeaderEpoch, `${path}.committedLeaderEpoch`, -1, INT32_MAX)(p)
          ),
        optionalString(x.committedMetadata, `${path}.committedMetadata`),
      ]),
    ]),
  );
}

export function validateOffsetFetch(r: unknown): string | null {
  return run(
    object(r, 'request', (o) => [
      string(o.groupId, 'groupId'),
      (p) => {
        if (o.topics === null) return;
        array(o.topics, 'topics', (item, path) =>
          object(item, path, (t) => [
            string(t.name, `${path}.name`),
            array(t.partitionIndexes, `${path}.partitionIndexes`, (i, ipath) => [integer(i, ipath, 0, INT32_MAX)]),
          ]),
        )(p);
      },
      (p) =>
        void (
          o.requireStable !== undefined &&
          typeof o.requireStable !== 'boolean' &&
          p.push('requireStable must be a boolean')
        ),
    ]),
  );
}

export function validateOffsetDelete(r: unknown): string | null {
  return run(
    object(r, 'request', (o) => [
      string(o.groupId, 'groupId'),
      topicPartitionsCheck(o.topics, (x, path) => [integer(x.partitionIndex, `${path}.partitionIndex`, 0, INT32_MAX)]),
    ]),
  );
}

export function validateGroupIds(ids: unknown, field: string): string | null {
  return run([array(ids, field, (item, path) => [string(item, path)])]);
}

export function validateListGroups(r: unknown): string | null {
  return run(
    object(r ?? {}, 'request', (o) => [
      (p) =>
        void (
          o.statesFilter !== undefined && array(o.statesFilter, 'statesFilter', (item, path) => [string(item, path)])(p)
        ),
    ]),
  );
}
