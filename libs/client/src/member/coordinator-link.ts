import { ErrorCode, type RequestEventName, type RequestResponseMap } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import { Backoff, type ResolvedRetry } from '../runtime/backoff';
import type { Timers } from '../runtime/timers';
import { sleep, type WakeSignal } from '../runtime/wake-signal';
import type { ClusterMetadata } from '../transport/cluster-metadata';
import type { ConnectionListener, NodeConnection, RequestOptions } from '../transport/node-connection';

export interface LinkEvents {
  /** A push for this link's group arrived from its coordinator. */
  push: NonNullable<ConnectionListener['push']>;
  /** The coordinator's socket reconnected or dropped: heartbeat at once (through rediscovery when it dropped). */
  reconnected(): void;
  /** The coordinator was heard from: send a heartbeat if one is overdue. */
  activity(): void;
  /** A retriable failure the link is riding out (FindCoordinator errors, unreachable nodes). */
  error(error: CohortError): void;
  stopping(): boolean;
}

const DISCOVERY_TIMEOUT_MS = 3000;

/**
 * Where a group's coordinator is, found with FindCoordinator through any node the client knows (see
 * ClusterMetadata: the bootstrap URLs only until the first answer), and found again (Kafka's
 * markCoordinatorUnknown) on NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, a CoordinatorMoved push or a
 * lost connection. Losing the coordinator keeps the member id and generation: the member carries on
 * with the new coordinator in the same generation. Nothing here is specific to one kind of member: any
 * group member (classic, KIP-848, share) reaches its coordinator through one of these.
 */
export class CoordinatorLink {
  private current: NodeConnection | null = null;
  private unsubscribe: (() => void) | null = null;
  private discovery: Promise<NodeConnection> | null = null;
  private readonly backoff: Backoff;

  constructor(
    private readonly groupId: string,
    private readonly cluster: ClusterMetadata,
    private readonly timers: Timers,
    retry: ResolvedRetry,
    private readonly requestTimeoutMs: number,
    private readonly events: LinkEvents,
    private readonly wake: WakeSignal,
  ) {
    this.backoff = new Backoff(retry, timers);
  }

  get url(): string | null {
    return this.current?.url ?? null;
  }

  /** The coordinator's connection, discovering it first when unknown (one lookup shared by all callers). */
  connection(): Promise<NodeConnection> {
    if (this.current && !this.current.isClosed) return Promise.resolve(this.current);
    this.discovery ??= this.discover().finally(() => (this.discovery = null));
    return this.discovery;
  }

  markUnknown(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.current = null;
  }

  /**
   * One request to the coordinator. A lost connection or a 15/16 answer (at the top level) forgets the
   * coordinator so that the next call finds it again; the response or error goes back to the caller.
   */
  async request<E extends RequestEventName>(
    event: E,
    payload: RequestResponseMap[E][0],
    timeoutMs: number,
    options?: RequestOptions,
  ): Promise<RequestResponseMap[E][1]> {
    const connection = await this.connection();
    let refused: CohortError | null = null;
    const beforeSend = options?.beforeSend;
    try {
      const response = await connection.request(event, payload, timeoutMs, {
        ...options,
        ...(beforeSend ? { beforeSend: () => (refused = beforeSend()) } : {}),
      });
      const code = (response as { errorCode?: number }).errorCode;
      if (
        (code === ErrorCode.NOT_COORDINATOR || code === ErrorCode.COORDINATOR_NOT_AVAILABLE) &&
        this.current === connection
      )
        this.markUnknown();
      return response;
    } catch (error) {
      if (refused === null && this.current === connection) {
        // A lost connection or a timeout: the node may be gone, so the node list is worth refreshing.
        this.cluster.requestUpdate();
        this.markUnknown();
      }
      throw error;
    }
  }

  close(): void {
    this.markUnknown();
  }

  private async discover(): Promise<NodeConnection> {
    for (;;) {
      if (this.events.stopping()) throw CohortError.of('NETWORK_EXCEPTION', 'the member is stopping');
      // The node list is refreshed beside the lookup (on the first one, from the node it goes to).
      void this.cluster.refreshIfDue();
      const node = this.cluster.pick();
      let asked = node.url;
      // A short wait per node, and none for a node that refuses connections, so that a dead one in the
      // list costs seconds, not a session.
      const timeoutMs = Math.min(this.requestTimeoutMs, DISCOVERY_TIMEOUT_MS);
      try {
        const found = await node.request('FindCoordinator', { key: this.groupId, keyType: 0 }, timeoutMs, {
          failFast: true,
        });
        this.cluster.succeeded(node.url);
        if (found.errorCode === ErrorCode.NONE) {
          const connection = this.cluster.connection(found.url);
          asked = connection.url;
          // Reach it before calling it the coordinator: a dead node may still be named until it is fenced.
          await connection.whenConnected(timeoutMs, true);
          this.cluster.succeeded(connection.url);
          this.adopt(connection);
          this.backoff.reset();
          this.cluster.tidy();
          return connection;
        }
        const error = CohortError.fromResponse(found as never);
        if (!error.retriable) throw error;
        this.cluster.requestUpdate();
        this.events.error(error);
      } catch (error) {
        if (error instanceof CohortError && !error.retriable) throw error;
        this.cluster.failed(asked);
        this.events.error(
          error instanceof CohortError ? error : CohortError.of('NETWORK_EXCEPTION', String(error), error),
        );
      }
      await sleep(this.timers, this.backoff.next(), this.wake);
    }
  }

  private adopt(connection: NodeConnection): void {
    this.markUnknown();
    this.current = connection;
    this.unsubscribe = connection.subscribe({
      push: (message) => {
        if (message.push.groupId === this.groupId) this.events.push(message);
      },
      connected: () => this.events.reconnected(),
      activity: () => this.events.activity(),
      disconnected: () => {
        // Kafka's markCoordinatorUnknown on a disconnect: the next request finds the coordinator
        // again (the same node after a blip, where discovery waits for the reconnect; another one
        // after a failover), keeping member id and generation.
        if (this.current === connection) {
          this.cluster.requestUpdate();
          this.markUnknown();
          this.events.reconnected();
        }
      },
    });
  }
}
