import type { MemberAssignment, RequestEventName } from '@cohort/protocol';
import type { SocketFactory, SocketLike } from '@cohort/client/transport/socket-like';
import { flush } from './fake-timers';

export interface Recorded {
  event: string;
  payload: any;
  url: string;
}

type Handler = (payload: any, url: string) => unknown;

/**
 * A scripted coordinator behind fake sockets, for the member's unit tests. By default it behaves as a
 * one-member group on one node (KIP-394 join, the member leads, SyncGroup hands back what the leader
 * sent, every other request succeeds); a test replaces a handler to answer what it needs. A handler
 * returning `HOLD` keeps the request unanswered until `release`. Every URL answers as a node of the
 * same cluster (`nodes` is what Metadata lists, `coordinator` what FindCoordinator names); `kill(url)`
 * makes one unreachable, as a SIGKILLed node is, until `revive(url)`.
 */
export class FakeCoordinator {
  static readonly HOLD = Symbol('hold');
  readonly requests: Recorded[] = [];
  readonly sockets: FakeSocket[] = [];
  readonly held: { event: string; payload: any; ack: (response: unknown) => void }[] = [];
  partitions: Record<string, number> = { orders: 4 };
  /** The live nodes Metadata lists (one node, the coordinator, by default). */
  nodes: { nodeId: number; url: string }[] = [{ nodeId: 0, url: 'http://node-0' }];
  /** What FindCoordinator answers. */
  coordinator = { nodeId: 0, url: 'http://node-0' };
  private readonly dead = new Set<string>();
  generation = 0;
  private nextMemberId = 1;
  private assignments = new Map<string, unknown>();
  readonly committed = new Map<string, number>();
  private readonly overrides = new Map<string, Handler[]>();
  private readonly persistent = new Map<string, Handler>();

  readonly factory: SocketFactory = (url) => {
    const socket = new FakeSocket(this, url);
    this.sockets.push(socket);
    void flush(1).then(() => socket.serverConnect());
    return socket;
  };

  /** Answers the next `times` requests of `event` with `handler` (then the default again). */
  answer(event: RequestEventName, handler: Handler, times = 1): void {
    const list = this.overrides.get(event) ?? [];
    for (let i = 0; i < times; i++) list.push(handler);
    this.overrides.set(event, list);
  }

  /** Answers every request of `event` with `handler` from now on (after any one-off answers). */
  always(event: RequestEventName, handler: Handler): void {
    this.persistent.set(event, handler);
  }

  clear(event: RequestEventName): void {
    this.overrides.delete(event);
    this.persistent.delete(event);
  }

  sent(event: string): any[] {
    return this.requests.filter((r) => r.event === event).map((r) => r.payload);
  }

  push(event: string, payload: unknown): void {
    for (const socket of this.sockets) if (socket.connected) socket.deliver(event, payload);
  }

  /** The transport drops; socket.io would reconnect by itself, which `reconnect()` plays. */
  drop(reason = 'transport close'): void {
    for (const socket of this.sockets) if (socket.connected) socket.serverDisconnect(reason);
  }

  reconnect(): void {
    for (const socket of this.sockets) if (!socket.connected && !socket.closedByClient) socket.serverConnect();
  }

  /** The node at `url` dies: its sockets drop and every connection attempt to it fails until `revive`. */
  kill(url: string): void {
    this.dead.add(url);
    for (const socket of this.sockets)
      if (socket.url === url && socket.connected) socket.serverDisconnect('transport close');
  }

  revive(url: string): void {
    this.dead.delete(url);
  }

  isDead(url: string): boolean {
    return this.dead.has(url);
  }

  release(event: string, response: unknown): void {
    const index = this.held.findIndex((h) => h.event === event);
    if (index < 0) throw new Error(`no held ${event}`);
    const [entry] = this.held.splice(index, 1);
    entry.ack(response);
  }

  handle(url: string, event: string, payload: any, ack: (response: unknown) => void): void {
    this.requests.push({ event, payload, url });
    const override = this.overrides.get(event)?.shift() ?? this.persistent.get(event);
    const response = override ? override(payload, url) : this.defaultAnswer(event, payload);
    if (response === FakeCoordinator.HOLD) {
      this.held.push({ event, payload, ack });
      return;
    }
    void flush(1).then(() => ack(response));
  }

  private defaultAnswer(event: string, payload: any): unknown {
    switch (event) {
      case 'FindCoordinator':
        return {
          errorCode: 0,
          nodeId: this.coordinator.nodeId,
          host: new URL(this.coordinator.url).hostname,
          port: 1,
          url: this.coordinator.url,
          partition: 0,
        };
      case 'Metadata':
        return {
          errorCode: 0,
          topics: (payload.topics as string[]).map((name) => ({
            name,
            partitions: this.partitions[name] ?? 0,
            errorCode: this.partitions[name] ? 0 : 3,
          })),
          nodes: this.nodes,
        };
      case 'JoinGroup':
        return this.join(payload);
      case 'SyncGroup': {
        for (const a of payload.assignments as { memberId: string; assignment: unknown }[])
          this.assignments.set(a.memberId, a.assignment);
        return {
          errorCode: 0,
          protocolType: 'consumer',
          protocolName: payload.protocolName,
          assignment: this.assignments.get(payload.memberId) ?? { partitions: [] },
        };
      }
      case 'OffsetCommit':
        for (const t of payload.topics)
          for (const p of t.partitions) this.committed.set(`${t.name}-${p.partitionIndex}`, p.committedOffset);
        return {
          errorCode: 0,
          topics: payload.topics.map((t: any) => ({
            name: t.name,
            partitions: t.partitions.map((p: any) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })),
          })),
        };
      case 'OffsetFetch':
        return {
          errorCode: 0,
          topics: payload.topics.map((t: any) => ({
            name: t.name,
            partitions: t.partitionIndexes.map((p: number) => ({
              partitionIndex: p,
              committedOffset: this.committed.get(`${t.name}-${p}`) ?? -1,
              committedLeaderEpoch: -1,
              metadata: '',
              errorCode: 0,
            })),
          })),
        };
      case 'LeaveGroup':
        return {
          errorCode: 0,
          members: payload.members.map((m: any) => ({
            memberId: m.memberId,
            groupInstanceId: m.groupInstanceId ?? null,
            errorCode: 0,
          })),
        };
      default:
        return { errorCode: 0 };
    }
  }

  /** A one-member group: KIP-394 for a dynamic newcomer, then a new generation led by it. */
  join(payload: any, members?: { memberId: string; metadata: unknown }[]): unknown {
    if (payload.memberId === '' && !payload.groupInstanceId) {
      return {
        errorCode: 79,
        errorName: 'MEMBER_ID_REQUIRED',
        memberId: `m-${this.nextMemberId++}`,
        generationId: -1,
        protocolType: null,
        protocolName: null,
        leader: '',
        skipAssignment: false,
        members: [],
      };
    }
    const memberId = payload.memberId || `static-${this.nextMemberId++}`;
    this.generation++;
    return {
      errorCode: 0,
      generationId: this.generation,
      protocolType: 'consumer',
      protocolName: payload.protocols[0].name,
      leader: memberId,
      skipAssignment: false,
      memberId,
      members: members ?? [
        { memberId, groupInstanceId: payload.groupInstanceId ?? null, metadata: payload.protocols[0].metadata },
      ],
    };
  }

  /** A SyncGroup answer carrying `assignment`. */
  static syncAnswer(assignment: MemberAssignment): unknown {
    return { errorCode: 0, protocolType: 'consumer', protocolName: null, assignment };
  }
}

export class FakeSocket implements SocketLike {
  connected = false;
  active = true;
  closedByClient = false;
  private readonly listeners = new Map<string, Set<(...args: any[]) => void>>();

  constructor(
    private readonly server: FakeCoordinator,
    readonly url: string,
  ) {}

  on(event: string, listener: (...args: any[]) => void): this {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return this;
  }

  off(event: string, listener: (...args: any[]) => void): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  emit(event: string, payload: unknown, ack: (response: unknown) => void): this {
    // Like socket.io, an emit while disconnected is buffered; the member must not send then.
    if (!this.connected) throw new Error(`emit of ${event} on a disconnected socket`);
    this.server.handle(this.url, event, payload, ack);
    return this;
  }

  connect(): this {
    this.closedByClient = false;
    this.active = true;
    void flush(1).then(() => this.serverConnect());
    return this;
  }

  disconnect(): this {
    this.closedByClient = true;
    this.active = false;
    if (this.connected) {
      this.connected = false;
      this.fire('disconnect', 'io client disconnect');
    }
    return this;
  }

  serverConnect(): void {
    if (this.connected || this.closedByClient) return;
    if (this.server.isDead(this.url)) {
      // socket.io would keep trying by itself; the fake leaves that to the SDK's own reconnect.
      this.active = false;
      this.fire('connect_error', new Error(`connect ECONNREFUSED ${this.url}`));
      return;
    }
    this.connected = true;
    this.fire('connect');
  }

  serverDisconnect(reason: string): void {
    this.connected = false;
    if (reason === 'io server disconnect' || this.server.isDead(this.url)) this.active = false;
    this.fire('disconnect', reason);
  }

  deliver(event: string, payload: unknown): void {
    this.fire(event, payload);
  }

  private fire(event: string, ...args: unknown[]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener(...args);
  }
}
