/**
 * Kafka's own classic sticky assignors (StickyAssignor, CooperativeStickyAssignor) as a same-run
 * baseline for the assignors bench: the bench's child process writes each call's input and Cohort's
 * answer as group files (writeClassicCalls), and the section then runs Kafka's classes on the same
 * inputs in one fresh JVM (KafkaClassicAssignorBench.java, compiled as kafka-assignor.ts compiles the
 * rest), in the order Cohort's calls were made, and reads back their answers.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MemberAssignment, TopicPartitions } from '@cohort/protocol';
import type { ClusterView, MemberSubscription } from '@cohort/assignors';
import { readGroupFile, writeGroupFile, type GroupFile } from '../assignor-group-file';
import { compileKafkaHarness, type KafkaMeasurement } from './kafka-assignor';

/** Kafka's classes timed here, by the name Cohort's assignor (and the protocol) goes by. */
export type ClassicKafkaAssignor = 'sticky' | 'cooperative-sticky';

/** The generation KafkaClassicAssignorBench gives a member that owns partitions. */
export const OWNED_GENERATION = 1;

/** One group's figures from the JVM, as KafkaAssignorBench's, and Kafka's answer to its first call. */
export type ClassicKafkaCall = Omit<KafkaMeasurement, 'java'>;

export interface ClassicKafkaMeasurement {
  java: string;
  /** One per group, in the order given. */
  calls: ClassicKafkaCall[];
}

/**
 * A classic group as a group file: each member's topics, and as its "assignment" what it owns (the
 * JVM side makes its user data from that, as the member's own assignor would). KafkaClassicAssignorBench
 * gives a member that owns partitions generation 1 and one that owns none no generation, so any other
 * input is refused rather than measured on a different group.
 */
export function classicGroupFile(cluster: ClusterView, members: readonly MemberSubscription[]): GroupFile {
  if (cluster.partitionRacks) throw new Error('racks are not passed to Kafka: the group file has no place for them');
  return {
    partitionsPerTopic: cluster.partitionsPerTopic,
    members: members.map(({ memberId, groupInstanceId, subscription }) => {
      const owned = subscription.ownedPartitions ?? [];
      const generation = owned.length > 0 ? OWNED_GENERATION : undefined;
      if (groupInstanceId != null || subscription.rackId != null)
        throw new Error(`member ${memberId}: static members and racks are not passed to Kafka`);
      if ((subscription.generationId ?? undefined) !== generation)
        throw new Error(
          `member ${memberId}: generation ${subscription.generationId} where Kafka's side assumes ${generation ?? 'none'}`,
        );
      // The sticky assignor reads what a member owned from its user data, which the JVM side rebuilds
      // from `owned`: it must say the same.
      const userData = subscription.userData as { previousAssignment?: unknown; generation?: number } | undefined;
      if (
        userData != null &&
        (userData.generation !== generation || JSON.stringify(userData.previousAssignment) !== JSON.stringify(owned))
      )
        throw new Error(`member ${memberId}: user data other than what it owns at generation ${generation ?? 'none'}`);
      return { memberId, subscribedTopics: subscription.topics, assignment: owned };
    }),
  };
}

/** An assignment as a group file (members without topics; `assignment` what each was given). */
export function assignmentFile(
  members: readonly MemberSubscription[],
  result: Record<string, MemberAssignment>,
): GroupFile {
  return {
    partitionsPerTopic: {},
    members: members.map(({ memberId }) => ({
      memberId,
      subscribedTopics: [],
      assignment: result[memberId]?.partitions ?? [],
    })),
  };
}

/** The files of one call under `dir`: its input, Cohort's answer, and Kafka's (written by the JVM). */
export function classicCallFiles(dir: string, call: string): { group: string; cohort: string; kafka: string } {
  return { group: join(dir, `${call}.group`), cohort: join(dir, `${call}.cohort`), kafka: join(dir, `${call}.kafka`) };
}

/** In the bench's child: each call's input and Cohort's answer to its first call, for the JVM. */
export function writeClassicCalls(
  dir: string,
  cluster: ClusterView,
  calls: readonly { call: string; input: readonly MemberSubscription[]; result: Record<string, MemberAssignment> }[],
): void {
  for (const { call, input, result } of calls) {
    const files = classicCallFiles(dir, call);
    writeFileSync(files.group, writeGroupFile(classicGroupFile(cluster, input)));
    writeFileSync(files.cohort, writeGroupFile(assignmentFile(input, result)));
  }
}

/** A group file's members' assignments by member id. */
export function assignmentsOf(file: string): Record<string, TopicPartitions[]> {
  const assignment: Record<string, TopicPartitions[]> = {};
  for (const member of readGroupFile(readFileSync(file, 'utf8')).members)
    assignment[member.memberId] = member.assignment as TopicPartitions[];
  return assignment;
}

/** Runs Kafka's `assignor` on the calls written under `dir`, in their order, in one fresh JVM. */
export function runKafkaClassicAssignor(
  assignor: ClassicKafkaAssignor,
  dir: string,
  calls: readonly string[],
  runs: number,
): ClassicKafkaMeasurement | { skipped: string } {
  const harness = compileKafkaHarness();
  if ('skipped' in harness) return harness;
  const files = calls.flatMap((call) => {
    const { group, kafka } = classicCallFiles(dir, call);
    return [group, kafka];
  });
  // G1, as Kafka's clients run by default; a larger heap than the server assignors' for 1M partitions.
  const run = spawnSync(
    'java',
    ['-Xmx8g', '-XX:+UseG1GC', '-cp', harness.classes, 'KafkaClassicAssignorBench', assignor, String(runs), ...files],
    { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 15 * 60_000 },
  );
  if (run.status !== 0)
    return {
      skipped: `the JVM failed: ${(run.stderr || run.error?.message || '').split('\n').slice(0, 3).join(' | ')}`,
    };
  const measured = JSON.parse(run.stdout.trim().split('\n').pop() as string) as {
    java: string;
    calls: Omit<ClassicKafkaCall, 'assignment'>[];
  };
  return {
    java: measured.java,
    calls: measured.calls.map((call, i) => ({
      ...call,
      assignment: assignmentsOf(classicCallFiles(dir, calls[i]).kafka),
    })),
  };
}
