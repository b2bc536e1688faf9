// Golden outputs of Kafka's own SimpleAssignor (apache/kafka trunk d79bd502ec7f, 4.5.0-SNAPSHOT, group-coordinator
// org.apache.kafka.coordinator.group.assignor.SimpleAssignor with its Simple{Homogeneous,Heterogeneous}AssignmentBuilder,
// unchanged there since KAFKA-19363), given groups built as Kafka's coordinator builds them: members in a HashMap
// filled in the order listed, topic ids UUID.nameUUIDFromBytes(name), each current target read as
// Assignment.fromRecord reads a record listing topics by name and partitions ascending (how Cohort stores a
// target), every partition assignable. Steps of a scenario are chained: a member's current target is Kafka's
// output of the step before. Cohort must give exactly the same assignment at every step.
import { readFileSync } from 'fs';
import { join } from 'path';
import type { TopicPartitions } from '@cohort/protocol';
import type { ConsumerGroupMemberSpec } from './consumer-group-assignor';
import { simpleShareAssign } from './share-assignor';

type Assignment = Record<string, number[]>;
interface GoldenStep {
  subscriptionType: 'Homogeneous' | 'Heterogeneous';
  topics: Record<string, number>;
  members: [memberId: string, subscribedTopics: string[], currentTarget: Assignment][];
  expected: Record<string, Assignment>;
}
interface Golden {
  scenarios: { name: string; steps: GoldenStep[] }[];
}

const golden = JSON.parse(readFileSync(join(__dirname, 'share-assignor.kafka-golden.json'), 'utf8')) as Golden;

function targetOf(assignment: Assignment): TopicPartitions[] {
  return Object.keys(assignment)
    .sort()
    .map((topic) => ({ topic, partitions: assignment[topic] }));
}

function asRecord(entries: TopicPartitions[]): Assignment {
  const out: Assignment = {};
  for (const { topic, partitions } of entries) out[topic] = [...partitions];
  return out;
}

describe('share assignor "simple" gives exactly what Kafka\'s SimpleAssignor gives', () => {
  it('covers homogeneous and heterogeneous groups, shared partitions, joins, leaves and growth', () => {
    const steps = golden.scenarios.flatMap((s) => s.steps);
    expect(steps.some((s) => s.subscriptionType === 'Homogeneous')).toBe(true);
    expect(steps.some((s) => s.subscriptionType === 'Heterogeneous')).toBe(true);
    expect(steps.length).toBeGreaterThan(300);
  });

  for (const { name, steps } of golden.scenarios) {
    it(name, () => {
      steps.forEach((step, index) => {
        const members: ConsumerGroupMemberSpec[] = step.members.map(([memberId, subscribedTopics, current]) => ({
          memberId,
          instanceId: null,
          subscribedTopics,
          assignment: targetOf(current),
        }));
        const result = simpleShareAssign({ members }, { partitionsPerTopic: step.topics });
        const actual: Record<string, Assignment> = {};
        for (const [memberId] of step.members) actual[memberId] = asRecord(result[memberId] ?? []);
        expect({ step: index, assignment: actual }).toEqual({ step: index, assignment: step.expected });
      });
    });
  }
});
