import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, until } from '@cohort/replication/testing';

export const SENTINEL_MASTER_NAME = 'cohort-e2e';

/**
 * A Redis master, one replica and three Sentinels (quorum 2) of a test's own, on free loopback ports,
 * each a `redis-server` process (Sentinels run as `redis-server <conf> --sentinel`) with its files in a
 * temporary directory. Sentinels call the master down after 1 s without answers.
 */
export class RedisSentinelSet {
  readonly dir = mkdtempSync(join(tmpdir(), 'cohort-sentinel-'));
  private readonly children = new Map<string, ChildProcess>();
  masterPort = 0;
  replicaPort = 0;
  readonly sentinelPorts: number[] = [];

  /** `host:port,...` as REDIS_SENTINELS takes it. */
  get sentinels(): string {
    return this.sentinelPorts.map((p) => `127.0.0.1:${p}`).join(',');
  }

  async start(): Promise<void> {
    this.masterPort = await freePort();
    this.replicaPort = await freePort();
    this.run('master', ['--port', String(this.masterPort), ...this.common('master')]);
    this.run('replica', [
      '--port',
      String(this.replicaPort),
      '--replicaof',
      '127.0.0.1',
      String(this.masterPort),
      ...this.common('replica'),
    ]);
    await until(
      'the replica in sync',
      async () => /master_link_status:up/.test(await this.info(this.replicaPort, 'replication')),
      20_000,
    );
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      this.sentinelPorts.push(port);
      const conf = join(this.dir, `sentinel-${i}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${this.dir}`,
          `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${this.masterPort} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} 1000`,
          `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 10000`,
          `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
          '',
        ].join('\n'),
      );
      this.run(`sentinel-${i}`, [conf, '--sentinel']);
    }
    // Every Sentinel knows the replica and the two others: a failover can be agreed.
    for (const port of this.sentinelPorts) {
      await until(
        `Sentinel ${port} ready`,
        async () => {
          const master = (await this.command(port, 'SENTINEL', 'master', SENTINEL_MASTER_NAME)) as string[];
          const field = (name: string) => Number(master[master.indexOf(name) + 1]);
          return field('num-slaves') === 1 && field('num-other-sentinels') === 2;
        },
        30_000,
      );
    }
  }

  /** The port of the master the Sentinels name now. */
  async currentMasterPort(): Promise<number> {
    const [, port] = (await this.command(
      this.sentinelPorts[0],
      'SENTINEL',
      'get-master-addr-by-name',
      SENTINEL_MASTER_NAME,
    )) as [string, string];
    return Number(port);
  }

  /** SIGKILL of the master's process. */
  killMaster(): Promise<void> {
    return this.kill('master');
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.children.keys()].map((name) => this.kill(name)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private common(name: string): string[] {
    return [
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      this.dir,
      '--dbfilename',
      `${name}.rdb`,
    ];
  }

  private run(name: string, args: string[]): void {
    this.children.set(name, spawn('redis-server', args, { stdio: 'ignore' }));
  }

  private async kill(name: string): Promise<void> {
    const child = this.children.get(name);
    this.children.delete(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  private info(port: number, section: string): Promise<string> {
    return this.command(port, 'INFO', section) as Promise<string>;
  }

  private async command(port: number, name: string, ...args: string[]): Promise<unknown> {
    const client = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      disconnectTimeout: 100,
    });
    client.on('error', () => undefined); // a process not up yet: the caller polls
    try {
      await client.connect();
      return await client.call(name, ...args);
    } finally {
      client.disconnect();
    }
  }
}
