/**
 * `npm run assignor:check -- <module> [--seed N] [--json]`: loads a plugin module (path relative to
 * the working directory, or a package name; `builtin:<name>` checks a built-in) and prints a
 * conformance report for every assignor it exports. Exit code 1 on a violation, 2 on a usage error.
 */
import type { PartitionAssignor } from '../api/partition-assignor';
import { builtInAssignors } from '../registry/assignor-registry';
import { assignorShapeProblem } from '../registry/assignor-shape';
import { exportedAssignors, resolveModuleSpec } from '../registry/load-plugins';
import { formatReport } from './format-report';
import { runConformance } from './run-conformance';

const USAGE = 'usage: npm run assignor:check -- <plugin module | builtin:<name>> [--seed N] [--json]';

export function loadForCheck(spec: string, cwd: string): PartitionAssignor[] {
  if (spec.startsWith('builtin:')) {
    const name = spec.slice('builtin:'.length);
    const found = builtInAssignors().find((a) => a.name === name);
    if (!found) throw new Error(`no built-in assignor '${name}'`);
    return [found];
  }
  const candidates = exportedAssignors(require(resolveModuleSpec(spec, cwd)) as unknown);
  for (const candidate of candidates) {
    const problem = assignorShapeProblem(candidate);
    if (problem) throw new Error(`'${spec}' does not export an assignor as default export or 'assignors': ${problem}`);
  }
  if (candidates.length === 0) throw new Error(`'${spec}' exports an empty list of assignors`);
  return candidates as PartitionAssignor[];
}

export function main(argv: string[], cwd: string, out: (line: string) => void): number {
  const args = [...argv];
  const json = args.includes('--json');
  const seedAt = args.indexOf('--seed');
  const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : 1;
  const spec = args.find((arg, i) => !arg.startsWith('--') && (seedAt < 0 || i !== seedAt + 1));
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
  const reports = assignors.map((assignor) => runConformance(assignor, seed));
  for (const report of reports) failed ||= report.violationCount > 0;
  if (json) out(JSON.stringify(reports, null, 2));
  else out(reports.map((report) => formatReport(report, spec)).join('\n\n'));
  return failed ? 1 : 0;
}

if (require.main === module) {
  process.exitCode = main(process.argv.slice(2), process.cwd(), (line) => console.log(line));
}
