/**
 * `npm run assignor:check -- <module> [--seed N] [--json] [--call-timeout S]`: loads a plugin module
 * (path relative to the working directory, or a package name; `builtin:<name>` checks a built-in) and
 * prints a conformance report for every assignor it exports. Exit code 1 on a violation (including a
 * call that does not return within the call timeout, default 30 s), 2 on a usage error.
 */
import type { PartitionAssignor } from '../api/partition-assignor';
import { builtInAssignors } from '../registry/assignor-registry';
import { assignorShapeProblem } from '../registry/assignor-shape';
import { exportedAssignors, resolveModuleSpec } from '../registry/load-plugins';
import { formatReport } from './format-report';
import { CALL_DONE_MARK, CALL_MARK, runWithWatchdog } from './call-watchdog';
import { runConformance, type ConformanceHooks } from './run-conformance';

const USAGE =
  'usage: npm run assignor:check -- <plugin module | builtin:<name>> [--seed N] [--json] [--call-timeout S]';
/** Flags followed by a value. */
const VALUE_FLAGS = new Set(['--seed', '--cwd', '--call-timeout']);
const DEFAULT_CALL_TIMEOUT_S = 30;

function flagValue(args: string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
}

function positional(args: string[]): string | undefined {
  return args.find((arg, i) => !arg.startsWith('--') && !(i > 0 && VALUE_FLAGS.has(args[i - 1])));
}

export function loadForCheck(spec: string, cwd: string): PartitionAssignor[] {
  if (spec.startsWith('builtin:')) {
    const name = spec.slice('builtin:'.length);
    const found = builtInAssignors().find((a) => a.name === name);
    if (!found) throw new Error(`no built-in assignor '${name}'`);
    return [found];
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a plugin is a module named at run time
  const candidates = exportedAssignors(require(resolveModuleSpec(spec, cwd)) as unknown);
  for (const candidate of candidates) {
    const problem = assignorShapeProblem(candidate);
    if (problem) throw new Error(`'${spec}' does not export an assignor as default export or 'assignors': ${problem}`);
  }
  if (candidates.length === 0) throw new Error(`'${spec}' exports an empty list of assignors`);
  return candidates as PartitionAssignor[];
}

/** The check itself, in this process (what the watchdog's child runs, and what the tests call). */
export function main(argv: string[], cwd: string, out: (line: string) => void, hooks: ConformanceHooks = {}): number {
  const args = [...argv];
  const json = args.includes('--json');
  const seed = Number(flagValue(args, '--seed') ?? 1);
  const spec = positional(args);
  if (!spec || !Number.isInteger(seed)) {
    out(USAGE);
    return 2;
  }
  let assignors: PartitionAssignor[];
  try {
    assignors = loadForCheck(spec, cwd);
  } catch (error) {
    out(`cannot load '${spec}': ${error instanceof Error ? error.message : String(error)}`);
    out(USAGE);
    return 2;
  }
  let failed = false;
  const reports = assignors.map((assignor) => runConformance(assignor, seed, hooks));
  for (const report of reports) failed ||= report.violationCount > 0;
  if (json) out(JSON.stringify(reports, null, 2));
  else out(reports.map((report) => formatReport(report, spec)).join('\n\n'));
  return failed ? 1 : 0;
}

/** The command: the check in a child process, stopped if one call hangs (call-watchdog.ts). */
export async function command(argv: string[], cwd: string, out: (line: string) => void): Promise<number> {
  const timeout = Number(flagValue(argv, '--call-timeout') ?? DEFAULT_CALL_TIMEOUT_S);
  if (!(timeout > 0)) {
    out(USAGE);
    return 2;
  }
  return runWithWatchdog(argv, cwd, out, { callTimeoutMs: timeout * 1000 });
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  if (argv.includes('--in-process')) {
    const mark = (line: string): boolean => process.stderr.write(`${line}\n`);
    process.exitCode = main(argv, flagValue(argv, '--cwd') ?? process.cwd(), (line) => console.log(line), {
      beforeCall: (where) => mark(`${CALL_MARK}${where}`),
      afterCall: () => mark(CALL_DONE_MARK),
    });
  } else {
    void command(argv, process.cwd(), (line) => console.log(line)).then((code) => {
      process.exitCode = code;
    });
  }
}
