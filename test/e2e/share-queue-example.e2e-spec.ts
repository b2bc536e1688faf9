import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { ensurePackagesBuilt } from '../support/built-packages';
import { type Chromium, launchChromium } from '../support/chromium';
import { eventually } from '../support/group-member';
import { type RunningApp, startApp, tempDataDir } from '../support/test-app';

// Chromium, the bundle (when stale) and four child processes take a while on a loaded machine.
jest.setTimeout(240_000);

const ROOT = resolve(__dirname, '../..');

/** One of the example's programs, run as its README runs it (TypeScript, compiled on the fly). */
function run(file: string, args: string[], env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'test/support/run-ts.js'), `examples/share-queue/${file}`, ...args],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, exited, output: () => output };
}

/**
 * examples/share-queue runs as its README says: a producer appends jobs to the example's job file and
 * reports the end offset, two Node workers and a browser tab share the jobs, every job is done once,
 * and the undoable one is rejected into the dead letters. So the example cannot rot.
 */
describe('examples/share-queue (e2e)', () => {
  const data = tempDataDir();
  const jobsDir = mkdtempSync(join(tmpdir(), 'cohort-share-queue-'));
  const env = { JOBS_FILE: join(jobsDir, 'jobs.jsonl'), GROUP_ID: 'share-queue', TOPIC: 'jobs' };
  const children: ChildProcess[] = [];
  let node: RunningApp;
  let browser: Chromium;
  let page: Page;
  let site = '';

  beforeAll(async () => {
    await ensurePackagesBuilt();
    const serve = run('serve.ts', [], { ...env, PORT: '0' });
    children.push(serve.child);
    await eventually(() => /localhost:(\d+)/.test(serve.output()), 'serve.ts listening', 60_000);
    site = `http://127.0.0.1:${/localhost:(\d+)/.exec(serve.output())![1]}`;
    node = await startApp({ DATA_DIR: data.dir, CORS_ORIGINS: site, GROUP_SHARE_AUTO_OFFSET_RESET: 'earliest' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await browser?.close();
    await node?.close();
    data.remove();
    rmSync(jobsDir, { recursive: true, force: true });
  });

  it('two Node workers and a browser tab share the jobs: each done once, the poisoned one a dead letter', async () => {
    const withNode = { ...env, COHORT_URL: node.url };
    // The topic first (the producer would create it too), so the workers have partitions to wait on.
    await fetch(`${node.url}/v1/topics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'jobs', partitions: 1 }),
    });
    page = await browser.newPage();
    await page.goto(`${site}/?url=${encodeURIComponent(node.url)}&autostart=1`);
    const tab = () =>
      page.evaluate(() => {
        const q = (
          globalThis as unknown as {
            shareQueue: { done: { id: number; deliveryCount: number }[]; rejected: number[]; state(): string };
          }
        ).shareQueue;
        return { done: q.done, rejected: q.rejected, state: q.state() };
      });
    await eventually(async () => (await tab()).state === 'stable', 'the tab joined', 60_000);
    const workers = [0, 1].map(() => run('worker.ts', [], { ...withNode, WORK_MS: '100', EXIT_WHEN_IDLE_MS: '4000' }));
    children.push(...workers.map((w) => w.child));
    await eventually(() => workers.every((w) => w.output().includes('joined as')), 'the workers joined', 60_000);

    const producer = run('producer.ts', ['30', '--poison', '3'], withNode);
    expect(await producer.exited).toBe(0);
    expect(producer.output()).toMatch(/appended jobs 0\.\.29 .*jobs-0 ends at 30/);

    const doneIds = async (): Promise<number[]> => [
      ...workers.flatMap((w) => [...w.output().matchAll(/^done job (\d+) /gm)].map((m) => Number(m[1]))),
      ...(await tab()).done.map((d) => d.id),
    ];
    await eventually(async () => (await doneIds()).length >= 29, '29 jobs done', 90_000);
    const ids = (await doneIds()).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: 30 }, (_, i) => i).filter((i) => i !== 3));
    expect((await tab()).done.length).toBeGreaterThan(0);
    // Whoever leased job 3 rejected it: a Node worker (its output) or the tab.
    const rejectedByNode = /rejected job 3 /.test(workers.map((w) => w.output()).join(''));
    expect(rejectedByNode || (await tab()).rejected.includes(3)).toBe(true);
    // The workers leave by themselves once idle.
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
    const letters = (await (await fetch(`${node.url}/v1/groups/share-queue/dead-letters`)).json()) as unknown;
    expect(letters).toEqual({
      groupId: 'share-queue',
      deadLetters: [
        { topic: 'jobs', partition: 0, firstOffset: 3, lastOffset: 3, reason: 'rejected', deliveryCount: 1 },
      ],
    });
  });
});
