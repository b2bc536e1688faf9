import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';

/** A lease as ShareAcquire answers it, with its partition. */
export interface WireLease {
  topic: string;
  partition: number;
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

interface AcquireAnswer {
  errorCode: number;
  errorMessage?: string;
  acquisitionLockTimeoutMs: number;
  partitions: {
    topic: string;
    partition: number;
    errorCode: number;
    leases: Omit<WireLease, 'topic' | 'partition'>[];
  }[];
}

/**
 * A share-group worker on a raw socket, for the benchmark: the protocol's events by hand (no SDK), so
 * a figure is the coordinator's and the wire's, as the Redis baseline is Redis's. It joins with
 * ShareGroupHeartbeat, keeps beating at the interval it is told, and leases and acknowledges on demand.
 */
export class ShareWorker {
  readonly memberId = randomUUID();
  private epoch = 0;
  private beat: NodeJS.Timeout | null = null;

  private constructor(
    readonly socket: Socket,
    readonly groupId: string,
  ) {}

  static async join(url: string, groupId: string, topics: string[]): Promise<ShareWorker> {
    const socket = io(url, { transports: ['websocket'], reconnection: false, forceNew: true });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const worker = new ShareWorker(socket, groupId);
    const joined = await worker.call<{
      errorCode: number;
      errorMessage?: string;
      memberEpoch: number;
      heartbeatIntervalMs: number;
    }>('ShareGroupHeartbeat', { groupId, memberId: worker.memberId, memberEpoch: 0, subscribedTopicNames: topics });
    if (joined.errorCode !== 0)
      throw new Error(`ShareGroupHeartbeat: ${joined.errorCode} ${joined.errorMessage ?? ''}`);
    worker.epoch = joined.memberEpoch;
    worker.beat = setInterval(() => {
      void worker
        .call<{ errorCode: number; memberEpoch: number }>('ShareGroupHeartbeat', {
          groupId,
          memberId: worker.memberId,
          memberEpoch: worker.epoch,
        })
        .then(
          (a) => {
            if (a.errorCode === 0) worker.epoch = a.memberEpoch;
          },
          () => undefined,
        );
    }, joined.heartbeatIntervalMs);
    worker.beat.unref();
    return worker;
  }

  /** One ShareAcquire; throws on a top-level error. */
  async acquire(maxRecords: number, maxWaitMs = 0, timeoutMs = 30_000): Promise<WireLease[]> {
    const answer = await this.call<AcquireAnswer>(
      'ShareAcquire',
      { groupId: this.groupId, memberId: this.memberId, maxRecords, batchSize: maxRecords, maxWaitMs },
      timeoutMs,
    );
    if (answer.errorCode !== 0) throw new Error(`ShareAcquire: ${answer.errorCode} ${answer.errorMessage ?? ''}`);
    return answer.partitions.flatMap((p) =>
      p.errorCode === 0 ? p.leases.map((l) => ({ ...l, topic: p.topic, partition: p.partition })) : [],
    );
  }

  /** One ShareAcknowledge of whole leases with one type (1 ACCEPT by default); the offsets it got committed. */
  async acknowledge(leases: WireLease[], type = 1): Promise<number> {
    const byPartition = new Map<string, { topic: string; partition: number; batches: unknown[]; size: number }>();
    for (const l of leases) {
      const key = `${l.topic}:${l.partition}`;
      const entry = byPartition.get(key) ?? { topic: l.topic, partition: l.partition, batches: [], size: 0 };
      entry.batches.push({ firstOffset: l.firstOffset, lastOffset: l.lastOffset, acknowledgeTypes: [type] });
      entry.size += l.lastOffset - l.firstOffset + 1;
      byPartition.set(key, entry);
    }
    const entries = [...byPartition.values()];
    const answer = await this.call<{ errorCode: number; partitions: { errorCode: number }[] }>('ShareAcknowledge', {
      groupId: this.groupId,
      memberId: this.memberId,
      acknowledgements: entries.map(({ topic, partition, batches }) => ({ topic, partition, batches })),
    });
    if (answer.errorCode !== 0) return 0;
    return entries.reduce((sum, e, i) => sum + (answer.partitions[i]?.errorCode === 0 ? e.size : 0), 0);
  }

  /** Drops the connection without leaving (a crashed worker). */
  kill(): void {
    if (this.beat) clearInterval(this.beat);
    this.socket.disconnect();
  }

  async leave(): Promise<void> {
    if (this.beat) clearInterval(this.beat);
    await this.call('ShareGroupHeartbeat', { groupId: this.groupId, memberId: this.memberId, memberEpoch: -1 }).catch(
      () => undefined,
    );
    this.socket.disconnect();
  }

  private call<T>(event: string, payload: unknown, timeoutMs = 30_000): Promise<T> {
    return this.socket.timeout(timeoutMs).emitWithAck(event, payload) as Promise<T>;
  }
}
