import { Command, CommanderError, Option } from 'commander';
import type { AdminApi, AdminOptions } from './admin-api';
import { aclsCommand } from './commands/acls.command';
import { assignorsCommand } from './commands/assignors.command';
import { clusterCommand } from './commands/cluster.command';
import type { CommandContext } from './commands/command-context';
import { groupsCommand } from './commands/groups.command';
import { offsetsCommand } from './commands/offsets.command';
import { topicsCommand } from './commands/topics.command';
import { type CliIo, Output, type OutputFormat } from './output/output';
import { CohortAdmin } from '@cohort/client';

export const DEFAULT_URL = 'http://localhost:3000';

export interface CliEnvironment {
  io: CliIo;
  env: Record<string, string | undefined>;
  /** How the admin client is made (the SDK's CohortAdmin; tests pass their own). */
  createAdmin?: (options: AdminOptions) => AdminApi;
}

interface GlobalOptions {
  url: string;
  token?: string;
  output: OutputFormat;
}

/** Every command with its flags; `--help` works at each level. */
export function buildProgram({
  io,
  env,
  createAdmin = (options) => new CohortAdmin(options),
}: CliEnvironment): Command {
  const program = new Command('cohort')
    .description(
      "Cohort's command line: consumer groups, offsets, lag, topics, the cluster, ACLs and assignors, over REST",
    )
    .addOption(
      new Option('--url <url>', 'a node of the cluster (several: comma-separated, tried in order)')
        .env('COHORT_URL')
        .default(env.COHORT_URL ?? DEFAULT_URL),
    )
    .addOption(new Option('--token <token>', 'bearer token').env('COHORT_TOKEN'))
    .addOption(
      new Option('--output <format>', 'table for people, json for scripts').choices(['table', 'json']).default('table'),
    );
  let admin: AdminApi | null = null;
  const context: CommandContext = {
    admin: () => {
      const { url, token } = program.opts<GlobalOptions>();
      admin ??= createAdmin({
        urls: url
          .split(',')
          .map((u) => u.trim())
          .filter((u) => u !== ''),
        token: token ?? env.COHORT_TOKEN,
      });
      return admin;
    },
    output: () => new Output(program.opts<GlobalOptions>().output, io),
  };
  for (const command of [groupsCommand, offsetsCommand, topicsCommand, clusterCommand, aclsCommand, assignorsCommand])
    program.addCommand(command(context));
  configure(program, io);
  return program;
}

/** Commander's settings are not inherited by commands made apart and added: set them on every level. */
function configure(command: Command, io: CliIo): void {
  command
    .exitOverride()
    .showHelpAfterError()
    .configureOutput({ writeOut: (text) => io.out(text), writeErr: (text) => io.err(text) });
  for (const sub of command.commands) configure(sub, io);
}

/**
 * Runs one command line (without `node` and the script) and answers the exit status: 0 success,
 * 1 the server answered with an error (printed with its Kafka name), 2 bad usage (with the usage).
 */
export async function runCli(args: string[], environment: CliEnvironment): Promise<number> {
  const program = buildProgram(environment);
  if (args.length === 0) {
    program.outputHelp({ error: true });
    return 2;
  }
  try {
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help ends parsing with an "error" whose exit code is 0; a command line without a command
      // (help printed as an error) and every parse error are bad usage.
      return error.exitCode === 0 ? 0 : 2;
    }
    const name = (error as { name?: string }).name;
    const message = error instanceof Error ? error.message : String(error);
    environment.io.err(`Error: ${name && name !== 'Error' ? `${name}: ` : ''}${message}\n`);
    return 1;
  }
}
