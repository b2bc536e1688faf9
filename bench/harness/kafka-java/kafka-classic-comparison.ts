/**
 * The assignors bench's rows for a classic sticky shape's call beside Kafka's own class timed on the
 * same input in the same run (kafka-classic-assignor.ts): Kafka's first call, its warm median and its
 * median once its JIT settled, each with the ratio of Cohort's first call (and median) to it, whether
 * every member got the same partitions, and the fixed figure of issue #27 as a reference line only.
 */
import type { TopicPartitions } from '@cohort/protocol';
import { compareAssignments } from '../assignor-group-file';
import type { ClassicKafkaCall } from './kafka-classic-assignor';

/** Cohort's figures for the call, ms, as the bench's child measured them. */
export interface ClassicCohortFigures {
  firstMs: number;
  firstCpuMs: number;
  runs: number[];
  cpuRuns: number[];
}

/** What the rows are about: Kafka's class, which call, and what to compare with. */
export interface ClassicRowsContext {
  kafkaClass: string;
  java: string;
  /** How Cohort's first call is named: the process's first call, or its first reassignment. */
  firstCall: string;
  runs: number;
  /** Cohort's median at most Kafka's times this meets the shape's target. */
  target: number;
  /** Kafka's figure taken once on another machine (issue #27), ms, if there is one. */
  reference?: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const ms = (value: number): string => `${value.toFixed(0).padStart(6)} ms`;
const ratio = (ours: number, theirs: number): string => `${(ours / theirs).toFixed(2)}×`;

function verdict(oursMs: number, kafkaMs: number, target: number): string {
  const limit = target === 1 ? "Kafka's time" : `${target} × Kafka's`;
  return oursMs <= kafkaMs * target ? `meets target (≤ ${limit})` : `MISSES target (≤ ${limit})`;
}

/**
 * The lines to print under Cohort's row for the call; `matched` is false when a member's partitions
 * differ from Kafka's (Cohort's classic assignors are meant to be Kafka-exact: the bench fails).
 */
export function classicKafkaRows(
  cohort: ClassicCohortFigures,
  cohortAssignment: Record<string, readonly TopicPartitions[]>,
  kafka: ClassicKafkaCall,
  context: ClassicRowsContext,
): { lines: string[]; matched: boolean } {
  const { runs, target } = context;
  const oursMedian = median(cohort.runs);
  const warm = median(kafka.warmMs);
  const warmCpu = median(kafka.warmCpuMs);
  const settled = median(kafka.settledMs);
  const settledCpu = median(kafka.settledCpuMs);
  const row = (what: string, kafkaMs: number, kafkaCpuMs: number, comparison: string): string =>
    `      ${what.padEnd(34)} ${ms(kafkaMs)} (cpu ${kafkaCpuMs.toFixed(0)} ms)   ${comparison}`;
  // Process CPU beside wall time: on a shared machine it is the steadier of the two.
  const oursCpuMedian = median(cohort.cpuRuns);
  const againstMedians = (kafkaMs: number, kafkaCpuMs: number): string =>
    `Cohort's first call ${ratio(cohort.firstMs, kafkaMs)} (cpu ${ratio(cohort.firstCpuMs, kafkaCpuMs)}); ` +
    `Cohort's median ${ratio(oursMedian, kafkaMs)} (cpu ${ratio(oursCpuMedian, kafkaCpuMs)}), ${verdict(oursMedian, kafkaMs, target)}`;
  const settledHow = kafka.jitQuiet
    ? `after ${kafka.settleCalls} more calls, the last 5 compiling nothing`
    : `after ${kafka.settleCalls} more calls, the JIT still compiling when its budget ran out`;
  const match = compareAssignments(cohortAssignment, kafka.assignment);
  const same = match.sameSets
    ? "yes, every member the same partitions (Cohort lists them by topic and partition, Kafka's lists in its own order)"
    : `NO (${match.difference})`;
  const lines = [
    `    Kafka's own ${context.kafkaClass} on the same input, in a fresh JVM of this run (JDK ${context.java}); ` +
      `Cohort: ${context.firstCall} ${cohort.firstMs.toFixed(0)} ms (cpu ${cohort.firstCpuMs.toFixed(0)}), median ${oursMedian.toFixed(0)} ms (cpu ${oursCpuMedian.toFixed(0)}):`,
    row(
      `Kafka's ${context.firstCall}`,
      kafka.firstMs,
      kafka.firstCpuMs,
      `Cohort's ${ratio(cohort.firstMs, kafka.firstMs)} (cpu ${ratio(cohort.firstCpuMs, kafka.firstCpuMs)})`,
    ),
    row(`warm (median of ${runs})`, warm, warmCpu, againstMedians(warm, warmCpu)),
    row(
      `JIT settled (median of ${runs})`,
      settled,
      settledCpu,
      `${againstMedians(settled, settledCpu)} (${settledHow})`,
    ),
    `      same assignment as Kafka's: ${same}`,
  ];
  if (context.reference !== undefined)
    lines.push(
      `      reference only, Kafka timed once on another machine (a warm JVM's second call): ${context.reference} ms`,
    );
  return { lines, matched: match.sameSets };
}
