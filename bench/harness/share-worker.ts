import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';

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

interface PendingCall {
  resolve: (answer: unknown) => void;
  reject: (error: Error) => void;
  deadline: number;
}

/** How often a worker looks for calls past their timeout: one timer per worker, not one per call. */
const SWEEP_MS = 1000;

/**
 * A share-group worker on a raw socket, for the benchmark: the protocol's events by hand (no SDK), so
 * a figure is the coordinator's and the wire's, as the Redis baseline is Redis's. It joins with
 * ShareGroupHeartbeat, keeps beating at the interval it is told, and leases and acknowledges on demand.
 *
 * Raw because a client's per-call costs are the client's: socket.io-client's emitter, encoder, ack
 * bookkeeping and the timer it arms for each call made the bench process, not the node, a limit of the
 * closed loops. Here one `ws` websocket speaks Engine.IO v4 and Socket.IO v5 text frames by hand, at
 * the server's path (/socket.io/, websocket only): `0{..}` open, `40` / `40{sid}` namespace connect
 * (`44{..}` refused), `2` ping / `3` pong, `42<id>["Event",payload]` a request and `43<id>[answer]` its
 * acknowledgement; calls past their timeout are failed by one sweep per worker. Pushes (`42[..]`, such
 * as HeartbeatNow) are ignored: the worker beats on its interval anyway.
 */
export class ShareWorker {
  readonly memberId = randomUUID();
  private epoch = 0;
  private beat: NodeJS.Timeout | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, PendingCall>();
  private readonly sweep: NodeJS.Timeout;

  private constructor(
    readonly socket: WebSocket,
    readonly groupId: string,
  ) {
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.receive((data as Buffer).toString());
    });
    socket.on('close', () => this.failAll(new Error('socket closed')));
    socket.on('error', () => undefined); // 'close' follows
    this.sweep = setInterval(() => {
      const now = Date.now();
      for (const [id, call] of this.pending)
        if (call.deadline <= now) {
          this.pending.delete(id);
          call.reject(new Error('operation has timed out'));
        }
    }, SWEEP_MS);
    this.sweep.unref();
  }

  static async join(url: string, groupId: string, topics: string[]): Promise<ShareWorker> {
    const worker = await ShareWorker.open(url, groupId);
    await worker.joinNow(topics);
    return worker;
  }

  /** A connected worker that has not joined yet (`joinNow`): many can then join at once. */
  static async open(url: string, groupId: string): Promise<ShareWorker> {
    const socket = await connect(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
    return new ShareWorker(socket, groupId);
  }

  /** Joins (epoch 0) and beats at the interval it is told from then on; the join may take `timeoutMs`. */
  async joinNow(topics: string[], timeoutMs = 30_000): Promise<void> {
    const { groupId } = this;
    const joined = await this.call<{
      errorCode: number;
      errorMessage?: string;
      memberEpoch: number;
      heartbeatIntervalMs: number;
    }>(
      'ShareGroupHeartbeat',
      { groupId, memberId: this.memberId, memberEpoch: 0, subscribedTopicNames: topics },
      timeoutMs,
    );
    if (joined.errorCode !== 0)
      throw new Error(`ShareGroupHeartbeat: ${joined.errorCode} ${joined.errorMessage ?? ''}`);
    this.epoch = joined.memberEpoch;
    this.beat = setInterval(() => {
      void this.call<{ errorCode: number; memberEpoch: number }>('ShareGroupHeartbeat', {
        groupId,
        memberId: this.memberId,
        memberEpoch: this.epoch,
      }).then(
        (a) => {
          if (a.errorCode === 0) this.epoch = a.memberEpoch;
        },
        () => undefined,
      );
    }, joined.heartbeatIntervalMs);
    this.beat.unref();
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
    this.stop();
    this.socket.terminate();
  }

  async leave(): Promise<void> {
    if (this.beat) clearInterval(this.beat);
    await this.call('ShareGroupHeartbeat', { groupId: this.groupId, memberId: this.memberId, memberEpoch: -1 }).catch(
      () => undefined,
    );
    this.stop();
    this.socket.close();
  }

  private stop(): void {
    if (this.beat) clearInterval(this.beat);
    clearInterval(this.sweep);
  }

  private call<T>(event: string, payload: unknown, timeoutMs = 30_000): Promise<T> {
    if (this.socket.readyState !== WebSocket.OPEN) return Promise.reject(new Error('socket closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (answer: unknown) => void, reject, deadline: Date.now() + timeoutMs });
      this.socket.send(`42${id}${JSON.stringify([event, payload])}`);
    });
  }

  private receive(frame: string): void {
    if (frame === '2') this.socket.send('3'); // the server's engine.io ping: without a pong it closes
    if (!frame.startsWith('43')) return; // a push, or the namespace's `41` (then 'close' fails the calls)
    const open = frame.indexOf('[');
    const id = Number(frame.slice(2, open));
    const call = this.pending.get(id);
    if (!call) return; // timed out already
    this.pending.delete(id);
    call.resolve((JSON.parse(frame.slice(open)) as unknown[])[0]);
  }

  private failAll(error: Error): void {
    this.stop();
    for (const call of this.pending.values()) call.reject(error);
    this.pending.clear();
  }
}

/**
 * The websocket once engine.io opened it and socket.io connected the default namespace (no `auth`:
 * the bench's nodes run without authentication). Rejects on a refusal (`44`) or a close first.
 */
function connect(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  return new Promise<WebSocket>((resolve, reject) => {
    const fail = (error: Error) => {
      socket.off('message', handshake);
      socket.off('close', closed);
      socket.terminate();
      reject(error);
    };
    const handshake = (data: WebSocket.RawData) => {
      const frame = (data as Buffer).toString();
      if (frame.startsWith('0')) socket.send('40');
      else if (frame === '2') socket.send('3');
      else if (frame.startsWith('40')) {
        socket.off('message', handshake);
        socket.off('close', closed);
        resolve(socket);
      } else if (frame.startsWith('44')) fail(new Error(`connect refused: ${frame.slice(2)}`));
    };
    const closed = () => reject(new Error('socket closed during the handshake'));
    socket.on('message', handshake);
    socket.once('close', closed);
    socket.on('error', () => undefined); // 'close' follows
  });
}
