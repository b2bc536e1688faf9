import { Redis } from 'ioredis';

/**
 * The baseline of the share-groups benchmark: Redis Streams used as a work queue, as its manual
 * describes it — one stream, one consumer group, each worker a consumer with its own connection doing
 * XREADGROUP (COUNT n) then XACK of what it read; redelivery of what a worker did not acknowledge is
 * XAUTOCLAIM with a minimum idle time, run by the other workers on a poll. Keys live under a prefix of
 * the benchmark's own on 127.0.0.1:6379 (or on the Redis at another URL) and are deleted afterwards.
 */
export const REDIS_URL = 'redis://127.0.0.1:6379';
const PREFIX = `cohort-bench:share-groups:${process.pid}:`;
const GROUP = 'workers';

export interface QueueRun {
  acked: number;
  seconds: number;
  perSecond: number;
}

export class RedisStreamsQueue {
  readonly key: string;
  private readonly admin: Redis;
  private readonly workers: Redis[] = [];
  /** Entries added by the last refill and not read since: what the workers can still read. */
  private unread = 0;

  private constructor(
    name: string,
    private readonly url: string,
  ) {
    this.key = `${PREFIX}${name}`;
    this.admin = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1 });
  }

  /** A fresh stream of `messages` small entries and its consumer group reading from the start. */
  static async filled(name: string, messages: number, url = REDIS_URL): Promise<RedisStreamsQueue> {
    const queue = new RedisStreamsQueue(name, url);
    await queue.refill(messages);
    return queue;
  }

  /** The stream made anew with `messages` entries, none read, for a run after one that drained it. */
  async refill(messages: number): Promise<void> {
    await this.admin.del(this.key);
    for (let sent = 0; sent < messages;) {
      const pipeline = this.admin.pipeline();
      const chunk = Math.min(5000, messages - sent);
      for (let i = 0; i < chunk; i++) pipeline.xadd(this.key, '*', 'job', String(sent + i));
      await pipeline.exec();
      sent += chunk;
    }
    await this.admin.xgroup('CREATE', this.key, GROUP, '0');
    this.unread = messages;
  }

  /**
   * The stream made anew with `messages` entries if fewer than `minimum` are left unread: between runs,
   * so a run never finds it drained (its workers would stop early and leave a figure of part of the run).
   */
  async refillBelow(minimum: number, messages: number): Promise<void> {
    if (this.unread < minimum) await this.refill(messages);
  }

  /** `count` worker connections (each a consumer of the group). */
  async connect(count: number): Promise<void> {
    while (this.workers.length < count) {
      const worker = new Redis(this.url, { maxRetriesPerRequest: 1 });
      await worker.ping();
      this.workers.push(worker);
    }
  }

  /**
   * Every worker in a closed loop for `durationMs` (or until the stream is drained): XREADGROUP COUNT
   * `batch`, then one XACK of the ids it read. Acknowledged entries per second over all workers.
   */
  async drain(batch: number, durationMs: number): Promise<QueueRun> {
    let acked = 0;
    const started = process.hrtime.bigint();
    const deadline = Date.now() + durationMs;
    await Promise.all(
      this.workers.map(async (worker, i) => {
        while (Date.now() < deadline) {
          const ids = await this.read(worker, `c${i}`, batch);
          if (ids.length === 0) return; // drained
          const done = await worker.xack(this.key, GROUP, ...ids); // not `acked += await`: loops run side by side
          acked += done;
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { acked, seconds, perSecond: acked / seconds };
  }

  /**
   * How long after a worker took an entry and went silent another worker has it again: the other one
   * polls XAUTOCLAIM every `pollMs` with `minIdleMs` (the lock duration's counterpart). Redis cannot
   * tell a disconnected consumer from a slow one, so a disconnect is redelivered the same way.
   */
  async redelivery(minIdleMs: number, pollMs: number): Promise<number> {
    const [silent, other] = this.workers;
    const [id] = await this.read(silent, 'silent', 1);
    const taken = Date.now();
    for (;;) {
      const [, claimed] = (await other.xautoclaim(this.key, GROUP, 'rescuer', minIdleMs, '0-0', 'COUNT', 1)) as [
        string,
        [string, string[]][],
      ];
      if (claimed.some(([claimedId]) => claimedId === id)) {
        await other.xack(this.key, GROUP, id);
        return Date.now() - taken;
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  /** Bytes of the stream key (entries and the group's pending-entries list), as Redis counts them. */
  async memoryBytes(): Promise<number> {
    return Number(await this.admin.call('MEMORY', 'USAGE', this.key, 'SAMPLES', '0'));
  }

  /** `perWorker` entries read and left pending by each worker (in flight, not acknowledged). */
  async holdPending(perWorker: number): Promise<number> {
    let held = 0;
    for (const [i, worker] of this.workers.entries()) {
      const ids = await this.read(worker, `holder${i}`, perWorker);
      held += ids.length;
    }
    return held;
  }

  /** Redis's own CPU time so far (user + system, ms; INFO cpu). */
  async cpuMs(): Promise<number> {
    const info = await this.admin.info('cpu');
    const field = (name: string): number => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
  }

  async dispose(): Promise<void> {
    await this.admin.del(this.key).catch(() => undefined);
    for (const worker of this.workers) worker.disconnect();
    this.admin.disconnect();
  }

  private async read(worker: Redis, consumer: string, count: number): Promise<string[]> {
    const answer = (await worker.xreadgroup('GROUP', GROUP, consumer, 'COUNT', count, 'STREAMS', this.key, '>')) as
      [string, [string, string[]][]][] | null;
    const ids = answer?.[0]?.[1].map(([id]) => id) ?? [];
    this.unread -= ids.length;
    return ids;
  }
}
