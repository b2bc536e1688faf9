import { Command, Option } from 'commander';
import type { TopicInfo } from '../admin-api';
import type { CommandContext } from './command-context';
import { run } from './run-action';
import { integer } from './topic-partitions';

function partitionRows(topic: TopicInfo): unknown[][] {
  return Array.from({ length: topic.partitions }, (_, p) => {
    const at = topic.reportedAt?.[p];
    return [
      topic.name,
      p,
      topic.startOffsets?.[p],
      topic.endOffsets[p],
      at === undefined ? null : new Date(at).toISOString(),
    ];
  });
}

const PARTITION_COLUMNS = ['TOPIC', 'PARTITION', 'START-OFFSET', 'END-OFFSET', 'REPORTED-AT'];

export function topicsCommand(context: CommandContext): Command {
  const topics = new Command('topics').description('the topic registry: partition counts and reported offsets');
  const partitionsOption = () =>
    new Option('--partitions <n>', 'partition count').argParser(integer(1)).makeOptionMandatory();

  topics
    .command('list')
    .description('every topic with its partition count')
    .action(
      run(async () => {
        const all = await context.admin().listTopics();
        context
          .output()
          .result(all, (list) => ({ columns: ['TOPIC', 'PARTITIONS'], rows: list.map((t) => [t.name, t.partitions]) }));
      }),
    );

  topics
    .command('describe <topic>')
    .description("a topic's partitions with their reported start and end offsets")
    .action(
      run(async (name: string) => {
        const topic = await context.admin().describeTopic(name);
        context.output().result(topic, (t) => ({ columns: PARTITION_COLUMNS, rows: partitionRows(t) }));
      }),
    );

  topics
    .command('create <topic>')
    .description('register a topic')
    .addOption(partitionsOption())
    .action(
      run(async (name: string, options: { partitions: number }) => {
        const topic = await context.admin().createTopic(name, options.partitions);
        context.output().result(topic, (t) => `Created topic ${t.name} with ${t.partitions} partitions.\n`);
      }),
    );

  topics
    .command('alter <topic>')
    .description('grow a topic (counts only grow); subscribed groups rebalance')
    .addOption(partitionsOption())
    .action(
      run(async (name: string, options: { partitions: number }) => {
        const topic = await context.admin().alterTopic(name, options.partitions);
        context.output().result(topic, (t) => `Topic ${t.name} now has ${t.partitions} partitions.\n`);
      }),
    );

  return topics;
}
