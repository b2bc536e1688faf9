/**
 * The server-assignors bench's rows for one shape: Cohort's figures beside Kafka's own classes timed on
 * the same group in the same run (kafka-assignor.ts), the ratio against the target (at most half of
 * Kafka's time), whether Kafka's assignment equals Cohort's, and the fixed figures of issue #27 (taken
 * once on another machine) as a reference line only.
 */
import type { ConsumerGroupAssignment, ConsumerGroupAssignor, ConsumerGroupSpec } from '@cohort/assignors';
import { compareAssignments } from '../assignor-group-file';
import { measureJoin } from '../server-assignor-join';
import { runKafkaAssignor, type KafkaMeasurement } from './kafka-assignor';

/** A group Cohort's assignor was given, and what it answered. */
export interface AssignedGroup {
  group: ConsumerGroupSpec;
  partitionsPerTopic: Record<string, number>;
  assignment: ConsumerGroupAssignment;
}

/** Cohort's figures for the shape, ms: its process's first call and its warm calls. */
export interface CohortFigures {
  firstMs: number;
  warm: number[];
  firstCpuMs: number;
  warmCpu: number[];
  /** Calls timed after `settleCalls` more unmeasured ones, as Kafka's settled calls (absent: not taken). */
  settled?: number[];
  settledCpu?: number[];
  settleCalls?: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The first quartile, median and third quartile of `values`: how far a median of them may move. */
function quartiles(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): string => {
    const position = q * (sorted.length - 1);
    const below = Math.floor(position);
    const above = Math.ceil(position);
    return (sorted[below] + (sorted[above] - sorted[below]) * (position - below)).toFixed(1);
  };
  return `${at(0.25)} / ${at(0.5)} / ${at(0.75)}`;
}

function row(what: string, ms: number, kafkaMs?: number): string {
  const ours = `  ${what.padEnd(28)} ${ms.toFixed(1).padStart(7)} ms`;
  if (kafkaMs === undefined) return ours;
  const verdict = ms <= kafkaMs / 2 ? 'met' : 'NOT met';
  return `${ours}   Kafka ${kafkaMs.toFixed(1).padStart(6)} ms: ${(ms / kafkaMs).toFixed(2)}× Kafka, target ≤ 0.5× ${verdict}`;
}

/**
 * The group of the join shape's first timed call, as the coordinator's builder hands it to `assignor`
 * (server-assignor-join.ts, one round: the group forms, a member joins, it leaves), and the answer.
 */
export function joinInput(
  root: string,
  assignor: ConsumerGroupAssignor,
  members: number,
  partitionsPerTopic: Record<string, number>,
): AssignedGroup {
  const calls: AssignedGroup[] = [];
  const capturing: ConsumerGroupAssignor = {
    name: assignor.name,
    assign: (spec, cluster) => {
      const assignment = assignor.assign(spec, cluster);
      // Copied now: the builder may hand the same lists on to the next call.
      const group = {
        members: spec.members.map((member) => ({
          memberId: member.memberId,
          subscribedTopics: [...member.subscribedTopics],
          assignment: member.assignment.map(({ topic, partitions }) => ({ topic, partitions: [...partitions] })),
        })),
      };
      calls.push({ group, partitionsPerTopic: { ...cluster.partitionsPerTopic }, assignment });
      return assignment;
    },
  };
  measureJoin(root, capturing, members, partitionsPerTopic, 0);
  if (calls.length < 2) throw new Error('the join shape did not call the assignor for its join');
  return calls[1];
}

/**
 * Times Kafka's uniform assignor on the group in a fresh JVM and returns the lines to print; `matched`
 * is false when Kafka's assignment differs from Cohort's (a port that is not exact fails the bench).
 */
export function compareWithKafka(
  input: AssignedGroup,
  cohort: CohortFigures,
  runs: number,
  reference: { warm: number; first?: number },
): { lines: string[]; matched: boolean } {
  const { group, partitionsPerTopic } = input;
  const kafka = runKafkaAssignor({ partitionsPerTopic, members: [...group.members] }, runs);
  return kafkaRows(input.assignment, cohort, kafka, runs, reference);
}

/** The rows for Cohort's figures and assignment beside Kafka's measurement (or why there is none). */
export function kafkaRows(
  assignment: ConsumerGroupAssignment,
  cohort: CohortFigures,
  kafka: KafkaMeasurement | { skipped: string },
  runs: number,
  reference: { warm: number; first?: number },
): { lines: string[]; matched: boolean } {
  const same = 'skipped' in kafka ? undefined : kafka;
  const lines = [
    row('first call of the process', cohort.firstMs, same?.firstMs),
    row(`warm (median of ${runs})`, median(cohort.warm), same && median(same.warmMs)),
    row('first call, process CPU', cohort.firstCpuMs, same?.firstCpuMs),
    row('warm, process CPU (median)', median(cohort.warmCpu), same && median(same.warmCpuMs)),
  ];
  let matched = true;
  if (same === undefined) lines.push(`  Kafka's own classes not measured: ${(kafka as { skipped: string }).skipped}`);
  else {
    // A JVM is still compiling after a few calls of this size; a coordinator running for hours is not.
    lines.push(
      `  Kafka once its JIT settled (median of ${same.settledCpuMs.length} calls after ${same.settleCalls} more` +
        (same.jitQuiet ? ', none of the last 5 compiling):' : ', the JIT still compiling when its budget ran out):'),
      row("  warm, Cohort's as above", median(cohort.warm), median(same.settledMs)),
      row('  warm, process CPU', median(cohort.warmCpu), median(same.settledCpuMs)),
      `  spread of those calls, process CPU (quartiles): Cohort ${quartiles(cohort.warmCpu)} ms, Kafka ${quartiles(same.settledCpuMs)} ms`,
    );
    // Cohort's warm calls above are the first after the process's first, while V8 still tiers up,
    // deoptimizes and grows its young generation: the settled calls of both sides compare like with like.
    const { settled, settledCpu, settleCalls } = cohort;
    if (settled !== undefined && settledCpu !== undefined && settled.length > 0)
      lines.push(
        `  Cohort settled the same way (median of ${settled.length} calls after ${settleCalls ?? 0} more), against Kafka settled:`,
        row('  settled', median(settled), median(same.settledMs)),
        row('  settled, process CPU', median(settledCpu), median(same.settledCpuMs)),
        `  spread of those calls (quartiles): Cohort wall ${quartiles(settled)} ms, CPU ${quartiles(settledCpu)} ms; Kafka wall ${quartiles(same.settledMs)} ms`,
      );
    const match = compareAssignments(assignment, same.assignment);
    const verdict = match.exact
      ? 'yes, each member in the order Kafka lists it'
      : match.sameSets
        ? 'same partitions, order differs'
        : 'NO';
    lines.push(
      `  same assignment as Kafka's classes (JDK ${same.java}): ${verdict}${match.difference ? ` (${match.difference})` : ''}`,
    );
    matched = match.exact;
  }
  lines.push(
    `  reference only, Kafka timed once on another machine: warm ${reference.warm} ms` +
      (reference.first === undefined ? '' : `, first call ${reference.first} ms`),
  );
  return { lines, matched };
}
