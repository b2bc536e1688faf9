import type { AdminApi, ResetOffsetsResult } from '../admin-api';
import { UsageError } from './command-context';

/** One line of kafka-consumer-groups.sh's reset plan: `topic,partition,offset` (one group's CSV). */
export interface PlannedOffset {
  topic: string;
  partition: number;
  offset: number;
}

/**
 * Parses the CSV that `--export` prints and `--from-file` reads, as Kafka's tool writes it for one
 * group: `topic,partition,offset` per line, no header. Blank lines are skipped; anything else that is
 * not three fields with a partition and an offset of 0 or more is bad usage naming the line.
 */
export function parseResetPlan(csv: string): PlannedOffset[] {
  const plan: PlannedOffset[] = [];
  csv.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const fields = line.split(',').map((f) => f.trim());
    if (fields.length !== 3 || fields[0] === '' || !/^\d+$/.test(fields[1]) || !/^\d+$/.test(fields[2]))
      throw new UsageError(`--from-file line ${index + 1} ("${line}"): expected topic,partition,offset`);
    plan.push({ topic: fields[0], partition: Number(fields[1]), offset: Number(fields[2]) });
  });
  if (plan.length === 0) throw new UsageError('--from-file: the file holds no topic,partition,offset line');
  return plan;
}

/** The CSV of `--export`: Kafka's one-group reset plan, readable back by `--from-file`. */
export function exportResetPlan(result: ResetOffsetsResult): string {
  return result.offsets.map((o) => `${o.topic},${o.partition},${o.newOffset}\n`).join('');
}

/**
 * A reset to the file's offsets. Each requested offset is kept within the partition's reported start
 * and end, as Kafka's tool does (the REST reset `offset` strategy clamps the same way), so the preview
 * asks for it partition by partition (one call per topic and offset); executing then commits the
 * previewed offsets in one write, which the coordinator refuses unless the group is Empty.
 */
export async function resetFromPlan(
  admin: AdminApi,
  groupId: string,
  plan: PlannedOffset[],
  execute: boolean,
): Promise<ResetOffsetsResult> {
  const byTopicAndOffset = new Map<string, { topic: string; offset: number; partitions: number[] }>();
  for (const { topic, partition, offset } of plan) {
    const key = `${topic}\0${offset}`;
    const entry = byTopicAndOffset.get(key) ?? { topic, offset, partitions: [] };
    entry.partitions.push(partition);
    byTopicAndOffset.set(key, entry);
  }
  const offsets: ResetOffsetsResult['offsets'] = [];
  for (const { topic, offset, partitions } of byTopicAndOffset.values()) {
    const preview = await admin.resetOffsets(groupId, {
      topics: [{ name: topic, partitions }],
      strategy: 'offset',
      value: offset,
      dryRun: true,
    });
    offsets.push(...preview.offsets);
  }
  offsets.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition);
  if (execute) {
    const topics = new Map<string, { partitionIndex: number; committedOffset: number }[]>();
    for (const o of offsets) {
      const partitions = topics.get(o.topic) ?? [];
      partitions.push({ partitionIndex: o.partition, committedOffset: o.newOffset });
      topics.set(o.topic, partitions);
    }
    await admin.setOffsets(
      groupId,
      [...topics].map(([name, partitions]) => ({ name, partitions })),
    );
  }
  return { groupId, dryRun: !execute, offsets };
}
