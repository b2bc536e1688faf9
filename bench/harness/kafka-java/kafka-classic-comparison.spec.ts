// The rows the assignors bench prints under a classic sticky shape's call: Kafka's own class timed on
// the same input in the same run, the ratios of Cohort's first call and median to each of its figures,
// the target's verdict, and whether each member got the same partitions. The JVM never runs here; a
// measurement is given as the harness would return it.
import type { ClassicKafkaCall } from './kafka-classic-assignor';
import { classicKafkaRows, type ClassicRowsContext } from './kafka-classic-comparison';

const cohort = { firstMs: 300, firstCpuMs: 350, runs: [90, 100, 400], cpuRuns: [80, 85, 90] };
const ours = { c0: [{ topic: 't', partitions: [0, 1] }], c1: [{ topic: 't', partitions: [2] }] };
const kafka: ClassicKafkaCall = {
  firstMs: 600,
  firstCpuMs: 900,
  firstThreadCpuMs: 550,
  warmMs: [250, 200, 260],
  warmCpuMs: [240, 210, 230],
  settledMs: [80, 75, 70],
  settledCpuMs: [80, 76, 71],
  settleCalls: 40,
  jitQuiet: true,
  // Kafka's lists in its own order: the same partitions count as the same assignment.
  assignment: { c0: [{ topic: 't', partitions: [1, 0] }], c1: [{ topic: 't', partitions: [2] }] },
};
const context: ClassicRowsContext = {
  kafkaClass: 'StickyAssignor',
  java: '17.0.15',
  firstCall: 'first call of the process',
  runs: 3,
  target: 1,
  reference: 241,
};

describe("the assignors bench's rows against Kafka's own classic sticky assignors", () => {
  it("gives the ratio of Cohort's first call to Kafka's first call, warm median and settled median", () => {
    const { lines, matched } = classicKafkaRows(cohort, ours, kafka, context);
    expect(matched).toBe(true);
    expect(lines[0]).toBe(
      "    Kafka's own StickyAssignor on the same input, in a fresh JVM of this run (JDK 17.0.15); " +
        'Cohort: first call of the process 300 ms (cpu 350), median 100 ms (cpu 85):',
    );
    expect(lines[1]).toMatch(
      /Kafka's first call of the process\s+600 ms \(cpu 900 ms\)\s+Cohort's 0\.50× \(cpu 0\.39×\)$/,
    );
    expect(lines[2]).toMatch(
      /warm \(median of 3\)\s+250 ms \(cpu 230 ms\)\s+Cohort's first call 1\.20× \(cpu 1\.52×\); Cohort's median 0\.40× \(cpu 0\.37×\), meets target \(≤ Kafka's time\)$/,
    );
    expect(lines[3]).toMatch(
      /JIT settled \(median of 3\)\s+75 ms \(cpu 76 ms\)\s+Cohort's first call 4\.00× \(cpu 4\.61×\); Cohort's median 1\.33× \(cpu 1\.12×\), MISSES target \(≤ Kafka's time\) \(after 40 more calls, the last 5 compiling nothing\)$/,
    );
  });

  it('says when the JIT was still compiling, and keeps the fixed figure as a reference line only', () => {
    const { lines } = classicKafkaRows(cohort, ours, { ...kafka, jitQuiet: false }, { ...context, target: 0.25 });
    expect(lines[3]).toMatch(/MISSES target \(≤ 0\.25 × Kafka's\) \(after 40 more calls, the JIT still compiling/);
    expect(lines[lines.length - 1]).toBe(
      "      reference only, Kafka timed once on another machine (a warm JVM's second call): 241 ms",
    );
    const noReference = classicKafkaRows(cohort, ours, kafka, { ...context, reference: undefined }).lines;
    expect(noReference.join('\n')).not.toMatch(/reference only/);
  });

  it("fails the comparison when a member's partitions differ from Kafka's", () => {
    const other = {
      ...kafka,
      assignment: { c0: [{ topic: 't', partitions: [0] }], c1: [{ topic: 't', partitions: [1, 2] }] },
    };
    const { lines, matched } = classicKafkaRows(cohort, ours, other, context);
    expect(matched).toBe(false);
    expect(lines).toContain("      same assignment as Kafka's: NO (c0: ours [t:0 t:1], Kafka's [t:0])");
  });
});
