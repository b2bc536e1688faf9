import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '@cohort/replication/testing';

const ROOT = resolve(__dirname, '..', '..');
/**
 * The checkout whose dist/ the nodes run: BENCH_DIST names another one (an older build), so an A/B
 * can alternate two builds in one run of the same harness. BENCH_NODE_ARGS adds node flags
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) to every node started.
 */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

/** Children still running, killed if the benchmark process exits early (a failure or its deadline). */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** The server (scripts/build-server.js) and the dashboard, once per benchmark run, so the nodes run exactly what `npm start` runs. */
export function buildApp(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-server.js')], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 600_000, // tsc over the whole app: minutes on a loaded machine
  });
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-ui.js')], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 60_000,
  });
}

/** Read at each start, so one benchmark process can switch builds between runs (A/B rounds). */
function appRoot(): string {
  return process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : ROOT;
}

/** One Cohort node as a child process (`node dist/src/main.js`) on a loopback port. */
export class CohortProcess {
  private child: ChildProcess | null = null;
  private output = '';
  private nodeArgs: string[] = [];
  url = '';

  private constructor(
    readonly dataDir: string,
    private readonly ownsDataDir: boolean,
  ) {}

  /** The node's process id while it runs (for CPU accounting). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** `nodeArgs`: node flags of this process only, after BENCH_NODE_ARGS (a section's instrumentation). */
  static async start(env: Record<string, string>, dataDir?: string, nodeArgs: string[] = []): Promise<CohortProcess> {
    const node = new CohortProcess(dataDir ?? mkdtempSync(join(tmpdir(), 'cohort-bench-')), dataDir === undefined);
    node.nodeArgs = nodeArgs;
    await node.launch(env);
    return node;
  }

  /** Starts the process and resolves with the time until /health/ready answered 200. */
  async launch(env: Record<string, string>): Promise<number> {
    const port = await freePort();
    this.url = `http://127.0.0.1:${port}`;
    const started = process.hrtime.bigint();
    this.output = '';
    this.child = spawn(process.execPath, [...NODE_ARGS, ...this.nodeArgs, 'dist/src/main.js'], {
      cwd: appRoot(),
      env: {
        ...process.env,
        LOG_LEVEL: process.env.BENCH_NODE_LOG_LEVEL ?? 'warn',
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: this.dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = this.child;
    running.add(child);
    child.once('exit', () => running.delete(child));
    // 'close' comes after the last output, which may still be in flight when 'exit' is seen.
    const closed = new Promise<void>((done) => child.once('close', () => done()));
    const log = process.env.BENCH_NODE_LOG;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
      if (log) appendFileSync(log, chunk);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    const deadline = Date.now() + 300_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        await closed;
        throw new Error(
          `node exited (${child.exitCode ?? child.signalCode}): ${this.output.trim().split('\n').slice(-5).join(' | ')}`,
        );
      }
      const ready = await fetch(`${this.url}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) return Number(process.hrtime.bigint() - started) / 1e6;
      if (Date.now() > deadline) throw new Error(`node not ready in time:\n${this.output}`);
      await new Promise((done) => setTimeout(done, 10));
    }
  }

  /** SIGTERM (graceful: the log is closed cleanly), SIGKILL if it takes longer than 30 s. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
    this.child = null;
  }

  async dispose(): Promise<void> {
    await this.stop();
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }

  async post(path: string, body: unknown, method = 'POST'): Promise<unknown> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json: unknown = await response.json().catch(() => null);
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  }
}
