import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { freePort } from './free-port';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { RealClock } from '@cohort/replication';

const clock = new RealClock();

export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => clock.schedule(ms, resolve));
}

/** Polls `probe` (errors count as "not yet") until it returns something truthy; fails after `limitMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false | 0>,
  limitMs = 15_000,
): Promise<T> {
  const deadline = clock.now() + limitMs;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch {
      // Not yet: Redis still down or a client still reconnecting.
    }
    if (clock.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(50);
  }
}

/**
 * A redis-server of a test's own on a free loopback port, so that it can be killed and restarted
 * without disturbing the machine's shared Redis. Without persistence a restart comes back empty.
 */
export class OwnRedisServer {
  private child: ChildProcess | null = null;
  readonly dir = mkdtempSync(join(tmpdir(), 'cohort-redis-'));

  private constructor(
    readonly port: number,
    private readonly persistent: boolean,
    /** `--requirepass`: clients must AUTH, and `url` carries the password as REDIS_URL would. */
    private readonly password?: string,
  ) {}

  static async create(persistent: boolean, options: { password?: string } = {}): Promise<OwnRedisServer> {
    return new OwnRedisServer(await freePort(), persistent, options.password);
  }

  get url(): string {
    return `redis://${this.password ? `:${encodeURIComponent(this.password)}@` : ''}127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const persistence = this.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
    this.child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--dir',
        this.dir,
        ...persistence,
        ...(this.password ? ['--requirepass', this.password] : []),
      ],
      { stdio: 'ignore' },
    );
    const probe = new Redis(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      disconnectTimeout: 100,
    });
    // Refused connections before the server listens are expected: `until` retries them, unreported.
    probe.on('error', () => undefined);
    try {
      await until('redis-server to answer', async () => {
        if (probe.status !== 'ready') await probe.connect().catch(() => probe.disconnect());
        return (await probe.ping()) === 'PONG';
      });
    } finally {
      probe.disconnect();
    }
  }

  /** SIGKILL (a crash) or SIGTERM (a clean shutdown, which persists the AOF when persistent). */
  async stop(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  }

  async dispose(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
