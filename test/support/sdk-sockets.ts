import type { Socket } from 'socket.io-client';
import type { SocketFactory, SocketLike } from '@cohort/client';
import { socketIoFactory } from '@cohort/client/transport/socket-like';
import { passThroughSocket } from './pass-through-socket';

/**
 * Real socket.io-client sockets for SDK e2e tests, with the network faults a test needs: `freeze()`
 * swallows every request (the member looks hung to the coordinator), `drop(ms)` cuts the transport and
 * keeps it down for `ms` before socket.io reconnects.
 */
export class SdkSockets {
  readonly sockets: Socket[] = [];
  private frozen = false;

  readonly factory: SocketFactory = (url, options) => {
    const socket = socketIoFactory(url, options);
    this.sockets.push(socket as unknown as Socket);
    return passThroughSocket(socket, (event, payload, ack) =>
      this.frozen ? undefined : socket.emit(event, payload, ack),
    );
  };

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
  }

  /** Closes every socket's transport as a network failure would, and lets socket.io reconnect after `ms`. */
  async drop(ms: number): Promise<void> {
    const live = this.sockets.filter((s) => s.connected);
    for (const socket of live) {
      socket.io.reconnection(false);
      socket.io.engine.close();
    }
    await new Promise((resolve) => setTimeout(resolve, ms));
    for (const socket of live) {
      socket.io.reconnection(true);
      socket.connect();
    }
  }
}

/**
 * socket.io-client sockets behind a firewall for one SDK client: while `allows(url)` is false, every
 * attempt to connect to `url` fails at once, as a refused connection does (the SDK's own reconnect
 * keeps trying); once it allows the URL, the next attempt opens a real socket. For a member that can
 * reach some nodes of the cluster and not others.
 */
export class Firewall {
  constructor(public allows: (url: string) => boolean) {}

  readonly factory: SocketFactory = (url, options) => new FirewalledSocket(url, () => this.allows(url), options);
}

type Listener = (...args: any[]) => void;

class FirewalledSocket implements SocketLike {
  private inner: SocketLike | null = null;
  private readonly listeners: [string, Listener][] = [];
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly open: () => boolean,
    private readonly options: Parameters<SocketFactory>[1],
  ) {
    this.attempt();
  }

  get connected(): boolean {
    return this.inner?.connected ?? false;
  }

  get active(): boolean {
    return this.inner ? this.inner.active !== false : false;
  }

  on(event: string, listener: Listener): this {
    this.listeners.push([event, listener]);
    this.inner?.on(event, listener);
    return this;
  }

  off(event: string, listener: Listener): this {
    const index = this.listeners.findIndex(([e, l]) => e === event && l === listener);
    if (index >= 0) this.listeners.splice(index, 1);
    this.inner?.off(event, listener);
    return this;
  }

  emit(event: string, payload: unknown, ack: (response: unknown) => void): unknown {
    if (!this.inner) throw new Error(`emit of ${event} on a socket that never connected`);
    return this.inner.emit(event, payload, ack);
  }

  connect(): this {
    if (this.inner) this.inner.connect();
    else this.attempt();
    return this;
  }

  disconnect(): this {
    this.closed = true;
    this.inner?.disconnect();
    return this;
  }

  private attempt(): void {
    if (this.closed) return;
    if (!this.open()) {
      setTimeout(() => {
        for (const [event, listener] of [...this.listeners])
          if (event === 'connect_error') listener(new Error(`connect ECONNREFUSED ${this.url} (firewall)`));
      }, 0);
      return;
    }
    this.inner = socketIoFactory(this.url, this.options);
    for (const [event, listener] of this.listeners) this.inner.on(event, listener);
  }
}
