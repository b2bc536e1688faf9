import type { Command } from 'commander';
import { UsageError } from './command-context';

/**
 * Wraps a command's action: bad usage found in the action (a UsageError) is reported like a parse
 * error, with the command's usage and exit status 2; anything else (a server's error) goes up to main.
 */
export function run<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await action(...args);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      const command = args[args.length - 1] as Command;
      command.error(`error: ${error.message}`, { exitCode: 2, code: 'cohort.usage' });
    }
  };
}
