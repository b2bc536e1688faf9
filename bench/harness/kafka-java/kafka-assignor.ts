/**
 * Kafka's own server assignors as a same-run baseline: the vendored classes beside this file (see
 * README.md) are compiled with the machine's JDK into a cache directory keyed by their content, then
 * each group runs in a fresh JVM (KafkaAssignorBench.java), so Cohort's figures are compared with
 * Kafka's measured on the same machine at the same time, not with figures taken elsewhere.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { TopicPartitions } from '@cohort/protocol';
import { readGroupFile, writeGroupFile, type GroupFile } from '../assignor-group-file';

export interface KafkaMeasurement {
  firstMs: number;
  firstCpuMs: number;
  /** The timing thread's own CPU (no GC or JIT compiler threads). */
  firstThreadCpuMs: number;
  /** The `runs` calls right after the first, as Cohort's are timed: wall and process CPU, ms. */
  warmMs: number[];
  warmCpuMs: number[];
  /**
   * 3 × `runs` calls once the JIT has settled (after `settleCalls` more unmeasured calls): a JVM is still
   * compiling after a few calls of this size, as a coordinator running for hours is not.
   */
  settledMs: number[];
  settledCpuMs: number[];
  settleCalls: number;
  /** Whether the JIT had compiled nothing for a few calls in a row before them (false: a budget ran out). */
  jitQuiet: boolean;
  java: string;
  /** The first call's assignment, each member's entries in the order Kafka's maps and sets iterate them. */
  assignment: Record<string, TopicPartitions[]>;
}

function javaSources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) javaSources(full, out);
    else if (entry.name.endsWith('.java')) out.push(full);
  }
  return out.sort();
}

let compiled: { classes: string } | { skipped: string } | undefined;

/** The directory of compiled classes, or why Kafka's side cannot run here (no JDK, a failed compile). */
export function compileKafkaHarness(): { classes: string } | { skipped: string } {
  if (compiled) return compiled;
  const sources = javaSources(__dirname);
  const hash = createHash('sha256');
  for (const file of sources) hash.update(relative(__dirname, file)).update(readFileSync(file));
  const classes = join(tmpdir(), `cohort-kafka-assignors-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(join(classes, 'KafkaAssignorBench.class'))) return (compiled = { classes });
  const probe = spawnSync('javac', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    return (compiled = { skipped: 'no JDK on this machine (javac not found): install one (JDK 17) to measure it' });
  const building = `${classes}.building-${process.pid}`;
  mkdirSync(building, { recursive: true });
  const run = spawnSync('javac', ['-nowarn', '-encoding', 'UTF-8', '-d', building, ...sources], {
    encoding: 'utf8',
    timeout: 5 * 60_000,
  });
  if (run.status !== 0) {
    rmSync(building, { recursive: true, force: true });
    return (compiled = { skipped: `javac failed: ${(run.stderr || run.error?.message || '').split('\n')[0]}` });
  }
  // Another bench run may have finished the same compile meanwhile; either copy is the same.
  try {
    renameSync(building, classes);
  } catch {
    rmSync(building, { recursive: true, force: true });
  }
  return (compiled = { classes });
}

/** Runs Kafka's assignor on `group` in a fresh JVM: the first call, then `runs` warm calls. */
export function runKafkaAssignor(
  group: GroupFile,
  runs: number,
  assignor: 'uniform' | 'range' = 'uniform',
): KafkaMeasurement | { skipped: string } {
  const harness = compileKafkaHarness();
  if ('skipped' in harness) return harness;
  const dir = mkdtempSync(join(tmpdir(), 'cohort-kafka-group-'));
  try {
    const input = join(dir, 'group.txt');
    const output = join(dir, 'assignment.txt');
    writeFileSync(input, writeGroupFile(group));
    // G1, as Kafka's scripts run the broker; the heap cap matches the bench's node children.
    const run = spawnSync(
      'java',
      ['-Xmx4g', '-XX:+UseG1GC', '-cp', harness.classes, 'KafkaAssignorBench', input, output, String(runs), assignor],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 5 * 60_000 },
    );
    if (run.status !== 0)
      return {
        skipped: `the JVM failed: ${(run.stderr || run.error?.message || '').split('\n').slice(0, 3).join(' | ')}`,
      };
    const measured = JSON.parse(run.stdout.trim().split('\n').pop() as string) as Omit<KafkaMeasurement, 'assignment'>;
    const assignment: Record<string, TopicPartitions[]> = {};
    for (const member of readGroupFile(readFileSync(output, 'utf8')).members)
      assignment[member.memberId] = member.assignment as TopicPartitions[];
    return { ...measured, assignment };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
