import { Command, Option } from 'commander';
import type { ResetOffsetsRequest } from '../admin-api';
import { type CommandContext, UsageError } from './command-context';
import { run } from './run-action';
import { collectTopics, integer, type TopicSelection } from './topic-partitions';

interface ResetOptions {
  topic?: TopicSelection[];
  allTopics?: boolean;
  toEarliest?: boolean;
  toLatest?: boolean;
  toOffset?: number;
  shiftBy?: number;
  toCurrent?: boolean;
  execute?: boolean;
}

/** The one strategy the flags name (kafka-consumer-groups.sh allows exactly one). */
function strategyOf(options: ResetOptions): Pick<ResetOffsetsRequest, 'strategy' | 'value'> {
  const chosen: Pick<ResetOffsetsRequest, 'strategy' | 'value'>[] = [];
  if (options.toEarliest) chosen.push({ strategy: 'earliest' });
  if (options.toLatest) chosen.push({ strategy: 'latest' });
  if (options.toOffset !== undefined) chosen.push({ strategy: 'offset', value: options.toOffset });
  if (options.shiftBy !== undefined) chosen.push({ strategy: 'shift', value: options.shiftBy });
  if (options.toCurrent) chosen.push({ strategy: 'current' });
  if (chosen.length !== 1)
    throw new UsageError('choose exactly one of --to-earliest, --to-latest, --to-offset, --shift-by, --to-current');
  return chosen[0];
}

export function offsetsCommand(context: CommandContext): Command {
  const offsets = new Command('offsets').description("reset or delete a group's committed offsets");

  offsets
    .command('reset <group>')
    .description(
      'preview new offsets for a group (a dry run) or, with --execute, commit them; the group must be Empty to execute',
    )
    .addOption(
      new Option(
        '--topic <topic[:partitions]>',
        'a topic, or some of its partitions (orders:0,2); repeatable',
      ).argParser(collectTopics),
    )
    .option('--all-topics', 'every partition the group has an offset for')
    .option('--to-earliest', 'the earliest reported offset (log start)')
    .option('--to-latest', 'the latest reported offset (log end)')
    .option('--to-offset <n>', 'this offset, kept within the reported start and end', integer(0))
    .option('--shift-by <n>', 'the committed offset plus n (negative goes back), kept within start and end', integer())
    .option('--to-current', 'the committed offset (the end where none)')
    .option('--execute', 'commit the new offsets (without it nothing changes)')
    .action(
      run(async (groupId: string, options: ResetOptions) => {
        const topics = options.topic ?? [];
        if (topics.length > 0 === Boolean(options.allTopics))
          throw new UsageError('give --topic (one or more) or --all-topics');
        const request: ResetOffsetsRequest = {
          ...(options.allTopics ? { allTopics: true } : { topics }),
          ...strategyOf(options),
          dryRun: !options.execute,
        };
        const result = await context.admin().resetOffsets(groupId, request);
        const out = context.output();
        out.result(result, (r) => ({
          columns: ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'NEW-OFFSET'],
          rows: r.offsets.map((o) => [r.groupId, o.topic, o.partition, o.currentOffset, o.newOffset]),
        }));
        if (result.dryRun && out.format === 'table')
          out.note('Dry run: nothing changed. Add --execute to commit these offsets.');
      }),
    );

  offsets
    .command('delete <group>')
    .description('delete committed offsets of a group (OffsetDelete: not of topics the group consumes)')
    .addOption(
      new Option('--topic <topic[:partitions]>', 'a topic, or some of its partitions; repeatable')
        .argParser(collectTopics)
        .makeOptionMandatory(),
    )
    .action(
      run(async (groupId: string, options: { topic: TopicSelection[] }) => {
        const admin = context.admin();
        const deleted: { topic: string; partition: number | null }[] = [];
        for (const { name, partitions } of options.topic) {
          if (!partitions) {
            await admin.deleteOffsets(groupId, name);
            deleted.push({ topic: name, partition: null });
            continue;
          }
          for (const partition of partitions) {
            await admin.deleteOffsets(groupId, name, partition);
            deleted.push({ topic: name, partition });
          }
        }
        context.output().result({ groupId, deleted }, (r) => ({
          columns: ['TOPIC', 'PARTITION', 'STATUS'],
          rows: r.deleted.map((d) => [d.topic, d.partition ?? '(all)', 'Successful']),
        }));
      }),
    );

  return offsets;
}
