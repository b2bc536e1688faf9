import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import request from 'supertest';
import { freePort } from '@cohort/replication/testing';
import { eventually } from '../support/group-member';
import { tempDataDir } from '../support/test-app';

jest.setTimeout(240_000);

const ROOT = resolve(__dirname, '../..');
const SCRIPT = 'scripts/start-cluster.sh';

function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** Two free loopback ports in a row (BASE_PORT and BASE_PORT + 1). */
async function basePort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (await bindable(port + 1)) return port;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * scripts/start-cluster.sh as docs/operations.md tells to use it: two nodes, then `restart 1` from
 * another shell (a clean stop, then a crash), then Ctrl-C stops every node, the restarted ones included.
 * The nodes run from the TypeScript sources (NODE_COMMAND), so no build is needed.
 */
describe('scripts/start-cluster.sh (e2e)', () => {
  const dir = tempDataDir('cohort-start-cluster-');
  const clusterId = `script-${process.pid}-${process.hrtime.bigint().toString(36)}`;
  let env: Record<string, string>;
  let supervisor: ChildProcess;
  let output = '';

  beforeAll(async () => {
    const port = await basePort();
    env = {
      ...(process.env as Record<string, string>),
      BASE_PORT: String(port),
      CLUSTER_ID: clusterId,
      CLUSTER_DIR: join(dir.dir, 'cluster'),
      NODE_COMMAND: `${process.execPath} test/support/run-ts.js src/main.ts`,
      REPLICATION_PORT: '0',
      OFFSETS_TOPIC_NUM_PARTITIONS: '6',
      NODE_SESSION_TIMEOUT_MS: '3000',
      LOG_LEVEL: 'warn',
    };
    supervisor = spawn('bash', [SCRIPT, '2'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    supervisor.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    supervisor.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(
      () => output.includes("cluster '" + clusterId + "' with 2 node(s) is up"),
      'the cluster up',
      180_000,
    );
  });

  afterAll(async () => {
    if (supervisor.exitCode === null) supervisor.kill('SIGTERM');
    const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const keys = await redis.keys(`${clusterId}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    dir.remove();
  });

  const pidOf = (id: number) => Number(readFileSync(join(env.CLUSTER_DIR, `node-${id}.pid`), 'utf8'));
  const restart = (...args: string[]) =>
    spawnSync('bash', [SCRIPT, 'restart', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 90_000 });
  const url = (id: number) => `http://127.0.0.1:${Number(env.BASE_PORT) + id}`;

  it('restarts one node with the same settings and data, cleanly or as a crash, while the others serve', async () => {
    for (const kill of [[], ['--kill']]) {
      const before = pidOf(1);
      const restarted = restart('1', ...kill);
      expect({ status: restarted.status, out: restarted.stdout, err: restarted.stderr }).toMatchObject({
        status: 0,
        out: expect.stringMatching(new RegExp(`node 1 is live again \\(pid \\d+, was ${before}\\)`)),
      });
      expect(pidOf(1)).not.toBe(before);
      expect(alive(before)).toBe(false);
      // supertest: a new connection each time (a pooled one may still point at the process just stopped).
      await request(url(1)).get('/health/live').expect(200);
      // Back in the cluster, as node 0 sees it.
      await eventually(
        async () =>
          (
            (await (await fetch(`${url(0)}/v1/cluster`)).json()) as { nodes: { nodeId: number; alive: boolean }[] }
          ).nodes
            .filter((n) => n.alive)
            .map((n) => n.nodeId)
            .sort()
            .join() === '0,1',
        'node 1 registered again',
        30_000,
      );
    }
  });

  it('refuses a node it did not start, and says so when no cluster runs', () => {
    const unknown = restart('7');
    expect(unknown.status).toBe(1);
    expect(unknown.stdout).toContain("node '7' is not one of 0..1");
    const nowhere = spawnSync('bash', [SCRIPT, 'restart', '0'], {
      cwd: ROOT,
      env: { ...env, CLUSTER_DIR: join(dir.dir, 'elsewhere') },
      encoding: 'utf8',
    });
    expect(nowhere.status).toBe(1);
    expect(nowhere.stderr).toContain('no cluster started by');
  });

  it('stops every node on SIGTERM, the restarted one included', async () => {
    const nodes = [pidOf(0), pidOf(1)];
    const exited = new Promise((done) => supervisor.once('exit', done));
    supervisor.kill('SIGTERM');
    await exited;
    await eventually(() => nodes.every((pid) => !alive(pid)), 'every node stopped', 30_000);
  });
});
