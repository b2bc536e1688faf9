/**
 * Runs the conformance check in a child process and stops it when one assign call takes longer than
 * the call timeout. An assignor runs synchronously (libs/assignors/README.md), so one that never returns would hang
 * the check — and, loaded into a node, that node's event loop. The child announces every call on
 * stderr; the parent kills it when an announced call does not finish in time and says which one.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

/** The child prints this before each call, then the call's name. */
export const CALL_MARK = '@@cohort-conformance-call ';
export const CALL_DONE_MARK = '@@cohort-conformance-done';

export interface WatchdogOptions {
  callTimeoutMs: number;
}

export function runWithWatchdog(
  argv: string[],
  cwd: string,
  out: (line: string) => void,
  options: WatchdogOptions,
): Promise<number> {
  const cli = path.join(__dirname, 'cli.ts');
  // The child runs from the repository root so that tsx finds tsconfig.json (the @cohort/* aliases);
  // the plugin is still resolved from the caller's directory.
  const repoRoot = path.resolve(__dirname, '../../../..');
  const child = spawn(process.execPath, ['--import', 'tsx', cli, '--in-process', '--cwd', cwd, ...argv], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let current: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let timedOut: string | null = null;
  const disarm = (): void => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  createInterface({ input: child.stdout }).on('line', out);
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (line.startsWith(CALL_MARK)) {
      current = line.slice(CALL_MARK.length);
      disarm();
      timer = setTimeout(() => {
        timedOut = current;
        child.kill('SIGKILL');
      }, options.callTimeoutMs);
    } else if (line === CALL_DONE_MARK) {
      disarm();
    } else {
      out(line);
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      disarm();
      if (timedOut !== null) {
        out(`FAIL: an assign call did not return within ${options.callTimeoutMs / 1000} s: ${timedOut}`);
        out('A node runs assignors on its event loop: an assignor that hangs there stalls every group on the node.');
        out('RESULT: FAIL (hung)');
        resolve(1);
        return;
      }
      resolve(code ?? 1);
    });
  });
}
