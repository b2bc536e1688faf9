import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hostPath, hostPathVariable, type ReplayedImage, replayImage } from '../support/image-replay';

// npm ci (from the npm cache), the server's and the CLI's builds and a prune: the slowest file of the
// suite, about a minute and a half on two idle cores, over four minutes while other suites load them.
jest.setTimeout(900_000);

const run = promisify(execFile);
const REPO_ROOT = join(__dirname, '../..');

/** The rows of a table as arrays of cells (split on runs of two or more spaces). */
function rows(table: string): string[][] {
  return table
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/\s{2,}/));
}

/**
 * docker/Dockerfile replayed without Docker (test/support/image-replay.ts): npm ci from the lock file,
 * the build, `npm prune --omit=dev`, then a folder holding only what the runtime stage copies, started
 * with the image's CMD and ENV, probed with its HEALTHCHECK, and its `cohort` command run from the
 * image's PATH. What the image would do at start (a production dependency pruned away, a file not
 * copied) happens here.
 */
describe('the Docker image, replayed step by step (e2e)', () => {
  const work = mkdtempSync(join(tmpdir(), 'cohort-image-'));
  let image: ReplayedImage;
  let node: ChildProcess;
  let url: string;
  let env: Record<string, string | undefined>;
  let output = '';

  beforeAll(async () => {
    image = await replayImage(join(REPO_ROOT, 'docker/Dockerfile'), REPO_ROOT, work);
    env = {
      ...image.env,
      PATH: hostPathVariable(image),
      DATA_DIR: hostPath(image, image.env.DATA_DIR),
      // Loopback and any free port instead of the image's 0.0.0.0:3000; everything else as the image sets it.
      HOST: '127.0.0.1',
      PORT: '0',
    };
    const [command, ...args] = image.cmd;
    node = spawn(command, args, { cwd: hostPath(image, '.'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    node.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    url = await new Promise<string>((resolve, reject) => {
      node.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const listening = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
        if (listening) resolve(listening[1]);
      });
      node.once('exit', (code) => reject(new Error(`the image's CMD exited (${code}):\n${output}`)));
    });
  });
  afterAll(async () => {
    if (node && node.exitCode === null && node.signalCode === null) {
      node.kill('SIGKILL');
      await new Promise((done) => node.once('exit', done));
    }
    rmSync(work, { recursive: true, force: true });
  });

  it("starts from the Node image that package.json's engines and this test run on", () => {
    const engines = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } })
      .engines.node;
    const [, minimumMajor] = /^>=(\d+)\./.exec(engines)!;
    const majors = image.baseImages.map((base) => Number(/^node:(\d+)[-.]/.exec(base)?.[1]));
    expect(majors).toEqual(image.baseImages.map(() => Number(process.versions.node.split('.')[0])));
    for (const major of majors) expect(major).toBeGreaterThanOrEqual(Number(minimumMajor));
  });

  it('holds only what the runtime stage copies: the build, production dependencies and the CLI', () => {
    const app = hostPath(image, '.');
    expect(readdirSync(app).sort()).toEqual(['dist', 'libs', 'node_modules', 'package.json', 'scripts']);
    expect(readdirSync(join(app, 'libs', 'cli')).sort()).toEqual(['bin', 'dist', 'package.json']);
    // Production dependencies are there (yaml among them), build tools are not.
    for (const kept of ['yaml', '@nestjs/core', 'pino']) expect(existsSync(join(app, 'node_modules', kept))).toBe(true);
    for (const dropped of ['tsx', 'tsup', 'jest', 'eslint', '@swc/core'])
      expect(existsSync(join(app, 'node_modules', dropped))).toBe(false);
    expect(image.user).toBe('node');
  });

  it('serves readiness, the dashboard, the OpenAPI page and the AsyncAPI document as YAML', async () => {
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(200);
    const ui = await fetch(`${url}/ui/`);
    expect([ui.status, ui.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    expect(await ui.text()).toContain('<script');
    const docs = await fetch(`${url}/docs`);
    expect([docs.status, await docs.text()]).toEqual([200, expect.stringContaining('swagger')]);
    const asyncapi = await fetch(`${url}/docs/asyncapi.yaml`);
    expect([asyncapi.status, await asyncapi.text()]).toEqual([200, expect.stringContaining('asyncapi: 3.0.0')]);
  });

  it("passes the image's HEALTHCHECK", async () => {
    const [command, ...args] = image.healthcheck!;
    const port = new URL(url).port;
    await expect(run(command, args, { env: { ...env, PORT: port } })).resolves.toBeDefined();
  });

  it("runs the image's `cohort` command from its PATH against the node", async () => {
    const cohort = (...args: string[]) => run('cohort', ['--url', url, ...args], { cwd: hostPath(image, '.'), env });
    expect((await cohort('topics', 'create', 'orders', '--partitions', '2')).stdout).toBe(
      'Created topic orders with 2 partitions.\n',
    );
    const set = await fetch(`${url}/v1/groups/image-check/offsets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topics: [{ name: 'orders', partitions: [{ partitionIndex: 1, committedOffset: 4 }] }] }),
    });
    expect(set.status).toBe(200);
    expect(rows((await cohort('groups', 'list')).stdout)).toEqual([
      ['GROUP', 'TYPE', 'PROTOCOL-TYPE', 'STATE', 'MEMBERS', 'COORDINATOR'],
      ['image-check', 'classic', '-', 'Empty', '0', '0'],
    ]);
    const described = rows((await cohort('groups', 'describe', 'image-check')).stdout);
    expect(described.slice(1).map((r) => r.slice(0, 4))).toEqual([['image-check', 'orders', '1', '4']]);
  });

  it('stops cleanly on SIGTERM, the STOPSIGNAL, leaving the logs closed', async () => {
    const exited = new Promise<[number | null, string | null]>((done) =>
      node.once('exit', (code, signal) => done([code, signal])),
    );
    node.kill('SIGTERM');
    // Nest closes the app, then ends the process with the signal it got (Docker reports 143).
    expect(await exited).toEqual([null, 'SIGTERM']);
    const dataDir = env.DATA_DIR!;
    const closed = readdirSync(dataDir).filter((dir) => existsSync(join(dataDir, dir, 'clean-close.index')));
    expect(closed.length).toBeGreaterThan(0);
  });
});
