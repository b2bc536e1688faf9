// The rows the server-assignors bench prints per shape: Cohort's figure beside Kafka's measured in the
// same run, the ratio and the ≤ 0.5× verdict, and whether the assignments match. The JVM itself never
// runs here; a measurement is given as the harness would return it.
import type { KafkaMeasurement } from './kafka-assignor';
import { kafkaRows } from './kafka-comparison';

const assignment = { a: [{ topic: 't', partitions: [1, 0] }] };
const cohort = { firstMs: 40, warm: [9, 10, 30], firstCpuMs: 20, warmCpu: [4, 5, 6] };
const kafka: KafkaMeasurement = {
  firstMs: 100,
  firstCpuMs: 30,
  firstThreadCpuMs: 25,
  warmMs: [20, 18, 40],
  warmCpuMs: [10, 12, 9],
  settledMs: [4, 5, 6],
  settledCpuMs: [4, 4, 4],
  settleCalls: 60,
  jitQuiet: true,
  java: '17.0.15',
  assignment: { a: [{ topic: 't', partitions: [1, 0] }] },
};
const reference = { warm: 18, first: 84 };

describe("the server-assignors bench's rows against Kafka", () => {
  it('prints each of Cohort figures as a ratio of Kafka measured in the same run, with the 0.5× verdict', () => {
    const { lines, matched } = kafkaRows(assignment, cohort, kafka, 3, reference);
    expect(matched).toBe(true);
    expect(lines[0]).toMatch(
      /first call of the process\s+40\.0 ms\s+Kafka\s+100\.0 ms: 0\.40× Kafka, target ≤ 0\.5× met$/,
    );
    expect(lines[1]).toMatch(/warm \(median of 3\)\s+10\.0 ms\s+Kafka\s+20\.0 ms: 0\.50× Kafka, target ≤ 0\.5× met$/);
    expect(lines[2]).toMatch(
      /first call, process CPU\s+20\.0 ms\s+Kafka\s+30\.0 ms: 0\.67× Kafka, target ≤ 0\.5× NOT met$/,
    );
    expect(lines[3]).toMatch(/warm, process CPU \(median\)\s+5\.0 ms\s+Kafka\s+10\.0 ms: 0\.50× Kafka/);
  });

  it('also compares with Kafka once its JIT settled, and keeps the fixed figures as a reference line only', () => {
    const { lines } = kafkaRows(assignment, cohort, kafka, 3, reference);
    expect(lines).toContain(
      '  Kafka once its JIT settled (median of 3 calls after 60 more, none of the last 5 compiling):',
    );
    expect(kafkaRows(assignment, cohort, { ...kafka, jitQuiet: false }, 3, reference).lines).toContain(
      '  Kafka once its JIT settled (median of 3 calls after 60 more, the JIT still compiling when its budget ran out):',
    );
    expect(lines.find((line) => line.includes('warm, process CPU') && line.includes('4.0 ms'))).toMatch(
      /1\.25× Kafka, target ≤ 0\.5× NOT met$/,
    );
    // Kafka times more settled calls than warm ones: the median names how many, the spread is printed.
    const settled = kafkaRows(
      assignment,
      cohort,
      { ...kafka, settledCpuMs: [3, 9, 4, 5, 4, 6, 4, 5, 30] },
      3,
      reference,
    );
    expect(settled.lines).toContain(
      '  Kafka once its JIT settled (median of 9 calls after 60 more, none of the last 5 compiling):',
    );
    expect(settled.lines).toContain(
      '  spread of those calls, process CPU (quartiles): Cohort 4.5 / 5.0 / 5.5 ms, Kafka 4.0 / 5.0 / 6.0 ms',
    );
    expect(lines[lines.length - 1]).toBe(
      '  reference only, Kafka timed once on another machine: warm 18 ms, first call 84 ms',
    );
  });

  it("compares Cohort's settled calls, when taken, with Kafka's settled calls", () => {
    const withSettled = { ...cohort, settled: [1, 2, 3, 9], settledCpu: [1, 1, 2, 2], settleCalls: 50 };
    const { lines } = kafkaRows(assignment, withSettled, kafka, 3, reference);
    expect(lines).toContain('  Cohort settled the same way (median of 4 calls after 50 more), against Kafka settled:');
    expect(lines.find((line) => line.includes('  settled  '))).toMatch(
      /2\.5 ms\s+Kafka\s+5\.0 ms: 0\.50× Kafka, target ≤ 0\.5× met$/,
    );
    expect(lines.find((line) => line.includes('settled, process CPU'))).toMatch(
      /1\.5 ms\s+Kafka\s+4\.0 ms: 0\.38× Kafka/,
    );
    expect(lines).toContain(
      '  spread of those calls (quartiles): Cohort wall 1.8 / 2.5 / 4.5 ms, CPU 1.0 / 1.5 / 2.0 ms; Kafka wall 4.5 / 5.0 / 5.5 ms',
    );
    expect(kafkaRows(assignment, cohort, kafka, 3, reference).lines.join('\n')).not.toMatch(/Cohort settled/);
  });

  it("says whether Kafka's assignment is Cohort's, and fails on a difference", () => {
    expect(kafkaRows(assignment, cohort, kafka, 3, reference).lines).toContain(
      "  same assignment as Kafka's classes (JDK 17.0.15): yes, each member in the order Kafka lists it",
    );
    const reordered = { ...kafka, assignment: { a: [{ topic: 't', partitions: [0, 1] }] } };
    const order = kafkaRows(assignment, cohort, reordered, 3, reference);
    expect(order.matched).toBe(false);
    expect(order.lines.join('\n')).toMatch(/same partitions, order differs/);
    const other = { ...kafka, assignment: { a: [{ topic: 't', partitions: [1] }] } };
    const different = kafkaRows(assignment, cohort, other, 3, reference);
    expect(different.matched).toBe(false);
    expect(different.lines.join('\n')).toMatch(
      /Kafka's classes \(JDK 17\.0\.15\): NO \(a: ours \[t:0 t:1\], Kafka's \[t:1\]\)/,
    );
  });

  it("prints Cohort's figures alone, and why, when Kafka's side cannot run", () => {
    const { lines, matched } = kafkaRows(assignment, cohort, { skipped: 'no JDK on this machine' }, 3, reference);
    expect(matched).toBe(true);
    expect(lines[0]).toMatch(/first call of the process\s+40\.0 ms$/);
    expect(lines).toContain("  Kafka's own classes not measured: no JDK on this machine");
    expect(lines.join('\n')).not.toMatch(/× Kafka/);
  });
});
