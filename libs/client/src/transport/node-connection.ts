import type { RequestEventName, RequestResponseMap, ServerToClientEvents } from '@cohort/protocol';
import { PushEvent } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import { Backoff, type ResolvedRetry } from '../runtime/backoff';
import type { Timers } from '../runtime/timers';
import type { AuthProvider, SocketFactory, SocketLike } from './socket-like';

/** The pushes members listen to (`HeartbeatNow` for consumer-protocol and share members; classic members ignore it). */
type PushEventName = keyof ServerToClientEvents;

/** One push of the protocol's server-to-client event map, tagged with its event. */
export type PushMessage = {
  [E in PushEventName]: { event: E; push: Parameters<ServerToClientEvents[E]>[0] };
}[PushEventName];

export interface ConnectionListener {
  push?(message: PushMessage): void;
  /** The socket is (again) connected. */
  connected?(): void;
  /** The socket dropped; requests in flight on it have failed. */
  disconnected?(reason: string): void;
  /** The node was heard from (a ping): an occasion to send an overdue heartbeat. */
  activity?(): void;
}

export interface RequestOptions {
  /** Called as the request goes out on the socket, with the time (e.g. a heartbeat's send time). */
  onSent?(at: number): void;
  /** Fail at the first failed connect attempt instead of waiting the whole timeout (lookups). */
  failFast?: boolean;
  /** Asked just before the request goes out: an error returned fails it unsent (e.g. its generation ended while it waited). */
  beforeSend?(): CohortError | null;
}

interface Pending {
  reject(error: CohortError): void;
}

/**
 * One socket to one node, shared by every member of a client. Requests wait for the socket to be
 * connected instead of going into socket.io's send buffer (a buffered Heartbeat or OffsetCommit
 * replayed after a reconnect would carry a stale generation); a request in flight when the socket
 * drops fails at once with NETWORK_EXCEPTION, so the caller retries on the new connection rather
 * than waiting for its ack timeout. After a server-side disconnect or a refused handshake socket.io
 * does not reconnect by itself, so this does, with back-off.
 */
export class NodeConnection {
  private readonly socket: SocketLike;
  private readonly listeners = new Set<ConnectionListener>();
  private readonly pending = new Set<Pending>();
  private readonly connectWaiters = new Set<{
    failFast: boolean;
    resolve(): void;
    reject(error: CohortError): void;
  }>();
  private readonly reconnectBackoff: Backoff;
  private reconnectTimer: unknown = null;
  private lastConnectError: CohortError | null = null;
  /** When the socket dropped or a connect attempt failed, while it has not connected since. */
  private unreachableSince: number | null = null;
  private closed = false;

  constructor(
    readonly url: string,
    factory: SocketFactory,
    auth: AuthProvider,
    private readonly timers: Timers,
    retry: ResolvedRetry,
  ) {
    this.reconnectBackoff = new Backoff(retry, timers);
    this.socket = factory(url, { auth, onActivity: () => this.onActivity() });
    this.socket.on('connect', () => this.onConnect());
    this.socket.on('disconnect', (reason: string) => this.onDisconnect(reason));
    this.socket.on('connect_error', (error: Error & { data?: { errorCode?: number; errorName?: string } }) =>
      this.onConnectError(error),
    );
    this.onPush(PushEvent.RebalanceInProgress, (push) => this.dispatch({ event: 'RebalanceInProgress', push }));
    this.onPush(PushEvent.CoordinatorMoved, (push) => this.dispatch({ event: 'CoordinatorMoved', push }));
    this.onPush(PushEvent.HeartbeatNow, (push) => this.dispatch({ event: 'HeartbeatNow', push }));
  }

  /**
   * `SocketLike` stays structural (any socket.io-client-like object, a test double included), so the
   * protocol's event maps type what this class listens to here, as `RequestResponseMap` (the map
   * `ClientToServerEvents` is built from) types what `request` sends.
   */
  private onPush<E extends PushEventName>(event: E, listener: ServerToClientEvents[E]): void {
    this.socket.on(event, listener);
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Since when the node has been unreachable (the socket dropped or could not connect); null while it is not known to be. */
  get downSince(): number | null {
    return this.unreachableSince;
  }

  /** Nobody listens on it and nothing is in flight on it or waiting for it: it may be closed without loss. */
  get isIdle(): boolean {
    return this.listeners.size === 0 && this.pending.size === 0 && this.connectWaiters.size === 0;
  }

  subscribe(listener: ConnectionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Sends `event` and resolves with its response, whatever its errorCode (callers decide what a code
   * means for them). Rejects with a retriable CohortError when the socket is not connected within
   * `timeoutMs`, drops while waiting, or the ack does not come within `timeoutMs`.
   */
  async request<E extends RequestEventName>(
    event: E,
    payload: RequestResponseMap[E][0],
    timeoutMs: number,
    options: RequestOptions = {},
  ): Promise<RequestResponseMap[E][1]> {
    const deadline = this.timers.now() + timeoutMs;
    if (!this.socket.connected) await this.whenConnected(timeoutMs, options.failFast);
    return new Promise((resolve, reject) => {
      const refused = options.beforeSend?.();
      if (refused) return reject(refused);
      const entry: Pending = { reject: (error) => finish(() => reject(error)) };
      const timer = this.timers.setTimeout(
        () =>
          entry.reject(
            CohortError.of('REQUEST_TIMED_OUT', `no answer to ${event} from ${this.url} within ${timeoutMs} ms`),
          ),
        Math.max(0, deadline - this.timers.now()),
      );
      const finish = (settle: () => void): void => {
        if (!this.pending.delete(entry)) return;
        this.timers.clearTimeout(timer);
        settle();
      };
      this.pending.add(entry);
      options.onSent?.(this.timers.now());
      this.socket.emit(event, payload, (response: unknown) =>
        finish(() => resolve(response as RequestResponseMap[E][1])),
      );
    });
  }

  /**
   * Resolves once connected; rejects after `timeoutMs` or when the handshake is refused for good, and,
   * with `failFast`, at the first failed attempt (a lookup would rather ask another node than wait).
   */
  whenConnected(timeoutMs: number, failFast = false): Promise<void> {
    if (this.closed)
      return Promise.reject(CohortError.of('NETWORK_EXCEPTION', `the connection to ${this.url} is closed`));
    if (this.socket.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        failFast,
        resolve: () => {
          this.timers.clearTimeout(timer);
          this.connectWaiters.delete(waiter);
          resolve();
        },
        reject: (error: CohortError) => {
          this.timers.clearTimeout(timer);
          this.connectWaiters.delete(waiter);
          reject(error);
        },
      };
      const timer = this.timers.setTimeout(() => {
        const cause = this.lastConnectError ? `: ${this.lastConnectError.message}` : '';
        waiter.reject(
          CohortError.of('NETWORK_EXCEPTION', `not connected to ${this.url} within ${timeoutMs} ms${cause}`),
        );
      }, timeoutMs);
      this.connectWaiters.add(waiter);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.reconnectTimer !== null) this.timers.clearTimeout(this.reconnectTimer);
    this.failPending(CohortError.of('NETWORK_EXCEPTION', `the connection to ${this.url} was closed`));
    for (const waiter of [...this.connectWaiters])
      waiter.reject(CohortError.of('NETWORK_EXCEPTION', `the connection to ${this.url} was closed`));
    this.listeners.clear();
    this.socket.disconnect();
  }

  private onConnect(): void {
    this.reconnectBackoff.reset();
    this.lastConnectError = null;
    this.unreachableSince = null;
    for (const waiter of [...this.connectWaiters]) waiter.resolve();
    for (const listener of [...this.listeners]) listener.connected?.();
  }

  private onDisconnect(reason: string): void {
    this.unreachableSince ??= this.timers.now();
    this.failPending(CohortError.of('NETWORK_EXCEPTION', `the connection to ${this.url} dropped (${reason})`));
    for (const listener of [...this.listeners]) listener.disconnected?.(reason);
    if (!this.closed && this.socket.active === false) this.scheduleReconnect();
  }

  private onConnectError(error: Error & { data?: { errorCode?: number; errorName?: string } }): void {
    const data = error.data;
    this.lastConnectError =
      typeof data?.errorCode === 'number'
        ? new CohortError(data.errorCode, `${this.url} refused the connection: ${error.message}`, {
            name: data.errorName,
            retriable: false,
          })
        : CohortError.of('NETWORK_EXCEPTION', `cannot connect to ${this.url}: ${error.message}`, error);
    this.unreachableSince ??= this.timers.now();
    // A handshake refused with a Kafka code (authentication, origin) is fatal for whoever waits, as
    // Kafka's authentication errors are; the socket still tries again later, with a fresh token.
    const refused = typeof data?.errorCode === 'number';
    for (const waiter of [...this.connectWaiters]) if (refused || waiter.failFast) waiter.reject(this.lastConnectError);
    if (!this.closed && this.socket.active === false) this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer !== null) return;
    this.reconnectTimer = this.timers.setTimeout(() => {
      this.reconnectTimer = null;
      if (!this.closed && !this.socket.connected) this.socket.connect();
    }, this.reconnectBackoff.next());
  }

  private onActivity(): void {
    for (const listener of [...this.listeners]) listener.activity?.();
  }

  private failPending(error: CohortError): void {
    for (const entry of [...this.pending]) entry.reject(error);
  }

  private dispatch(message: PushMessage): void {
    for (const listener of [...this.listeners]) listener.push?.(message);
  }

  /** The last handshake failure, if the socket is not connected because of one. */
  get connectError(): CohortError | null {
    return this.lastConnectError;
  }
}
