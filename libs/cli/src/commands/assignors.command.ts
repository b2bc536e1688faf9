import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { AssignDryRunRequest } from '@cohort/protocol';
import type { CommandContext } from './command-context';
import { UsageError } from './command-context';
import { run } from './run-action';

interface DryRunAnswer {
  assignments: Record<string, { topic: string; partitions: number[] }[]>;
  unknownTopics?: string[];
}

export function assignorsCommand(context: CommandContext): Command {
  const assignors = new Command('assignors').description('registered assignors and dry runs');

  assignors
    .command('list')
    .description('built-in and plugin assignors')
    .action(
      run(async () => {
        const all = await context.admin().listAssignors();
        context.output().result(all, (list) => ({
          columns: ['NAME', 'BUILT-IN', 'PROTOCOLS'],
          rows: list.map((a) => [a.name, a.builtIn ? 'yes' : 'no', a.supportedProtocols.join(',')]),
        }));
      }),
    );

  assignors
    .command('assign <name>')
    .description('what the assignor would assign: the input is { partitionsPerTopic, members } as JSON')
    .addOption(new Option('--input <file>', "a JSON file ('-' for stdin)").makeOptionMandatory())
    .action(
      run(async (name: string, options: { input: string }) => {
        let input: unknown;
        try {
          input = JSON.parse(readFileSync(options.input === '-' ? 0 : options.input, 'utf8'));
        } catch (error) {
          throw new UsageError(`--input ${options.input}: ${error instanceof Error ? error.message : String(error)}`);
        }
        const answer = (await context.admin().assign(name, input as AssignDryRunRequest)) as DryRunAnswer;
        const out = context.output();
        out.result(answer, (a) => ({
          columns: ['MEMBER', 'TOPIC', 'PARTITIONS'],
          rows: Object.entries(a.assignments).flatMap(([member, entries]) =>
            entries.length === 0
              ? [[member, null, null]]
              : entries.map((e) => [member, e.topic, e.partitions.join(',')]),
          ),
        }));
        if (out.format === 'table' && (answer.unknownTopics?.length ?? 0) > 0)
          out.note(`Not in partitionsPerTopic (nobody gets them): ${answer.unknownTopics!.join(', ')}`);
      }),
    );

  return assignors;
}
