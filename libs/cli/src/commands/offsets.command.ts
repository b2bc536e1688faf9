import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { AdminApi, ResetOffsetsRequest, ResetOffsetsResult } from '../admin-api';
import { type CommandContext, UsageError } from './command-context';
import { exportResetPlan, type PlannedOffset, parseResetPlan, resetFromPlan } from './reset-plan';
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
  toDatetime?: string;
  byDuration?: string;
  fromFile?: string;
  execute?: boolean;
  dryRun?: boolean;
  export?: boolean;
}

type Strategy = Pick<ResetOffsetsRequest, 'strategy' | 'value' | 'datetime' | 'duration'> | { fromFile: string };

const SCENARIOS =
  '--to-earliest, --to-latest, --to-offset, --shift-by, --to-current, --to-datetime, --by-duration, --from-file';

/** The one scenario the flags name (kafka-consumer-groups.sh allows exactly one). */
function strategyOf(options: ResetOptions): Strategy {
  const chosen: Strategy[] = [];
  if (options.toEarliest) chosen.push({ strategy: 'earliest' });
  if (options.toLatest) chosen.push({ strategy: 'latest' });
  if (options.toOffset !== undefined) chosen.push({ strategy: 'offset', value: options.toOffset });
  if (options.shiftBy !== undefined) chosen.push({ strategy: 'shift', value: options.shiftBy });
  if (options.toCurrent) chosen.push({ strategy: 'current' });
  if (options.toDatetime !== undefined) chosen.push({ strategy: 'datetime', datetime: options.toDatetime });
  if (options.byDuration !== undefined) chosen.push({ strategy: 'duration', duration: options.byDuration });
  if (options.fromFile !== undefined) chosen.push({ fromFile: options.fromFile });
  if (chosen.length !== 1) throw new UsageError(`choose exactly one of ${SCENARIOS}`);
  return chosen[0];
}

function readPlan(path: string): PlannedOffset[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--from-file ${path}: ${(error as Error).message}`);
  }
  return parseResetPlan(text);
}

/**
 * Kafka's tool refuses a reset, even a preview, unless the group is inactive; Cohort previews it
 * anyway and says what executing would meet. A group that does not exist yet is inactive.
 */
async function refusalOfExecute(admin: AdminApi, groupId: string): Promise<string | null> {
  const state = await admin.describeGroup(groupId).then(
    (group) => group.state,
    () => null,
  );
  if (state === null || state === 'Empty' || state === 'Dead') return null;
  return `Executing this reset will be refused: assignments can only be reset if the group '${groupId}' is inactive, but the current state is ${state}.`;
}

export function offsetsCommand(context: CommandContext): Command {
  const offsets = new Command('offsets').description("reset or delete a group's committed offsets");

  offsets
    .command('reset <group>')
    .description(
      'preview new offsets for a group (--dry-run, the default) or, with --execute, commit them; the group must be inactive (Empty) to execute',
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
    .option(
      '--to-datetime <datetime>',
      "the end offset reported as of this time (docs/lag.md). Format: 'YYYY-MM-DDTHH:mm:SS.sss' (UTC unless it ends with Z or an offset such as +01:00)",
    )
    .option('--by-duration <duration>', "the end offset reported as of this long before now. Format: 'PnDTnHnMnS'")
    .option(
      '--from-file <csv>',
      'the offsets of a CSV file of topic,partition,offset lines (what --export prints), kept within start and end',
    )
    .option('--dry-run', 'only show the new offsets, change nothing (the default)')
    .option('--execute', 'commit the new offsets (without it nothing changes)')
    .option('--export', 'print the new offsets as CSV (topic,partition,offset), for --from-file')
    .action(
      run(async (groupId: string, options: ResetOptions) => {
        if (options.execute && options.dryRun)
          throw new UsageError('Option --reset-offsets only accepts one of --execute and --dry-run');
        const strategy = strategyOf(options);
        const topics = options.topic ?? [];
        const admin = context.admin();
        let result: ResetOffsetsResult;
        if ('fromFile' in strategy) {
          if (topics.length > 0 || options.allTopics)
            throw new UsageError('--from-file names its partitions: give no --topic or --all-topics');
          result = await resetFromPlan(admin, groupId, readPlan(strategy.fromFile), Boolean(options.execute));
        } else {
          if (topics.length > 0 === Boolean(options.allTopics))
            throw new UsageError('give --topic (one or more) or --all-topics');
          result = await admin.resetOffsets(groupId, {
            ...(options.allTopics ? { allTopics: true } : { topics }),
            ...strategy,
            dryRun: !options.execute,
          });
        }
        const out = context.output();
        if (options.export) out.raw(exportResetPlan(result));
        else
          out.result(result, (r) => ({
            columns: ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'NEW-OFFSET'],
            rows: r.offsets.map((o) => [r.groupId, o.topic, o.partition, o.currentOffset, o.newOffset]),
          }));
        if (!result.dryRun) return;
        const refusal = await refusalOfExecute(admin, groupId);
        if (refusal) out.note(refusal);
        else if (!options.dryRun) out.note('Dry run: nothing changed. Add --execute to commit these offsets.');
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
