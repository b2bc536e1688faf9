/**
 * The REST dry run (docs/rest.md, POST /v1/assignors/:name/assign): the body describes a group in a flat
 * form; we check it, run the named assignor through the safe runner and answer
 * `{ assignments: { memberId: [{ topic, partitions }] }, unknownTopics }`. A subscribed topic missing
 * from partitionsPerTopic (deleted, or not created yet) gets nothing, as Kafka's assignors treat it, and
 * is named in `unknownTopics`, so a preview of such a group can still be made. Unknown assignor →
 * KafkaError UNSUPPORTED_ASSIGNOR (404); bad body → KafkaError INVALID_REQUEST naming the field (400).
 */
import { KafkaError, type TopicPartitions } from '@cohort/protocol';
import type { MemberSubscription } from '../api/partition-assignor';
import type { AssignorRegistry } from '../registry/assignor-registry';
import { STICKY_ASSIGNOR_NAME } from '../sticky/sticky-assignor';
import type { RunAssignorOptions } from './run-assignor';
import type { ConsumerGroupSpec } from '../server/consumer-group-assignor';
import { validateAssignorInput } from '../validation/validate-input';

export interface DryRunMember {
  memberId: string;
  groupInstanceId?: string | null;
  topics: string[];
  ownedPartitions?: TopicPartitions[];
  generationId?: number;
  userData?: unknown;
  /** Extension for rack-aware assignors. */
  rackId?: string | null;
}

export interface DryRunRequest {
  partitionsPerTopic: Record<string, number>;
  members: DryRunMember[];
  /** Extension: replica racks per partition (see ClusterView.partitionRacks). */
  partitionRacks?: Record<string, (string | null)[][]>;
  /** 'consumer': the consumer group (server) assignor of that name; default 'classic'. */
  groupType?: 'classic' | 'consumer';
}

export interface DryRunResponse {
  assignments: Record<string, TopicPartitions[]>;
  /** Subscribed topics that are not in partitionsPerTopic, sorted. */
  unknownTopics: string[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): KafkaError {
  return KafkaError.of('INVALID_REQUEST', message);
}

function toMember(raw: unknown, index: number, stickyUserDataFromOwned: boolean): MemberSubscription {
  if (!isPlainObject(raw)) throw invalid(`members[${index}]: must be { memberId, topics, ... }`);
  const { memberId, groupInstanceId, topics, ownedPartitions, generationId, userData, rackId } = raw;
  let data = userData;
  // A Java StickyAssignor member reports its previous assignment and generation in user data, and
  // the assignor reads nothing else; the dry run builds that user data from the body's fields.
  if (stickyUserDataFromOwned && data === undefined && Array.isArray(ownedPartitions)) {
    data =
      typeof generationId === 'number' && generationId >= 0
        ? { previousAssignment: ownedPartitions, generation: generationId }
        : { previousAssignment: ownedPartitions };
  }
  return {
    memberId: memberId as string,
    groupInstanceId: groupInstanceId as string | null | undefined,
    subscription: {
      topics: topics as string[],
      ownedPartitions: ownedPartitions as TopicPartitions[] | undefined,
      generationId: generationId as number | undefined,
      userData: data,
      rackId: rackId as string | null | undefined,
    },
  };
}

export function dryRunAssign(
  registry: AssignorRegistry,
  name: string,
  body: unknown,
  options: RunAssignorOptions = {},
): DryRunResponse {
  if (isPlainObject(body) && body.groupType !== undefined && body.groupType !== 'classic') {
    if (body.groupType !== 'consumer') throw invalid("groupType: must be 'classic' or 'consumer'");
    registry.requireConsumerGroupAssignor(name);
  } else if (!registry.has(name) && registry.consumerGroupAssignor(name)) {
    // A consumer group's server assignor (uniform, or range of the consumer protocol) asked as a classic one.
    throw KafkaError.of(
      'UNSUPPORTED_ASSIGNOR',
      `'${name}' is a consumer group (server) assignor: send "groupType": "consumer" to run it; the classic assignors are ${registry
        .list()
        .filter((a) => a.groupTypes.includes('classic'))
        .map((a) => a.name)
        .join(', ')}`,
    );
  } else registry.require(name);
  if (!isPlainObject(body)) throw invalid('body: must be { partitionsPerTopic, members }');
  if (!Array.isArray(body.members)) throw invalid('members: must be an array');
  if (body.groupType === 'consumer') return consumerGroupDryRun(registry, name, body, options);
  const fromOwned = name === STICKY_ASSIGNOR_NAME && registry.isBuiltIn(name);
  const members = body.members.map((member, index) => toMember(member, index, fromOwned));
  const cluster = {
    partitionsPerTopic: body.partitionsPerTopic as Record<string, number>,
    partitionRacks: body.partitionRacks as DryRunRequest['partitionRacks'],
  };
  try {
    const result = registry.run(name, cluster, members, { unknownTopics: 'ignore', ...options });
    return {
      assignments: Object.fromEntries(
        Object.entries(result).map(([memberId, assignment]) => [memberId, assignment.partitions]),
      ),
      unknownTopics: unknownTopicsOf(members, cluster.partitionsPerTopic),
    };
  } catch (error) {
    // Field names in the body are flat: members[i].topics, not members[i].subscription.topics.
    if (error instanceof KafkaError && error.errorName === 'INVALID_REQUEST')
      throw invalid(error.message.replace(/(members\[\d+\])\.subscription\./g, '$1.'));
    throw error;
  }
}

/**
 * The consumer group dry run: the members' `ownedPartitions` are their current targets, which the
 * server assignors keep where balance allows; `generationId` and `userData` mean nothing there.
 */
function consumerGroupDryRun(
  registry: AssignorRegistry,
  name: string,
  body: Record<string, unknown>,
  options: RunAssignorOptions,
): DryRunResponse {
  const members = (body.members as unknown[]).map((member, index) => toMember(member, index, false));
  const cluster = { partitionsPerTopic: body.partitionsPerTopic as Record<string, number> };
  try {
    validateAssignorInput(cluster, members, { unknownTopics: 'ignore', ...options });
  } catch (error) {
    if (error instanceof KafkaError && error.errorName === 'INVALID_REQUEST')
      throw invalid(error.message.replace(/(members\[\d+\])\.subscription\./g, '$1.'));
    throw error;
  }
  const group: ConsumerGroupSpec = {
    members: members.map((member) => ({
      memberId: member.memberId,
      instanceId: member.groupInstanceId ?? null,
      rackId: member.subscription.rackId ?? null,
      subscribedTopics: member.subscription.topics,
      assignment: member.subscription.ownedPartitions ?? [],
    })),
  };
  const result = registry.requireConsumerGroupAssignor(name).assign(group, cluster);
  return { assignments: result, unknownTopics: unknownTopicsOf(members, cluster.partitionsPerTopic) };
}

function unknownTopicsOf(members: MemberSubscription[], partitionsPerTopic: Record<string, number>): string[] {
  const unknown = new Set<string>();
  for (const member of members)
    for (const topic of member.subscription.topics) if (!Object.hasOwn(partitionsPerTopic, topic)) unknown.add(topic);
  return [...unknown].sort();
}
