/**
 * One section of `npm run bench`. The runner (bench/run.ts) lists them, runs all of them in order, or
 * the one named on its command line (`npm run bench -- <name> [arguments]`).
 */
export interface BenchSection {
  /** What `npm run bench -- <name>` selects and `npm run bench -- --list` shows. */
  name: string;
  /** One line for `--list`: what it measures and against which baseline. */
  summary: string;
  /** Its nodes run from dist/ (as `npm start` runs them): the runner builds the app once before the first. */
  needsBuild: boolean;
  /** What may follow the name on the command line, for `--list` (empty: nothing). */
  usage?: string;
  /** Measures and prints; `args` follow the name on the command line (none when every section runs). */
  run(args: string[]): Promise<void>;
}

/** A measurement that fails is printed as not measured, and the section goes on with its other rows. */
export async function attempt<T>(what: string, run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    console.log(`  ${what}: not measured (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    return null;
  }
}
