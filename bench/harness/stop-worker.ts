import type { ChildProcess } from 'node:child_process';

/** Asks a benchmark worker process to stop, and kills it if it has not exited within 30 s. */
export async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send({ type: 'stop' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}
