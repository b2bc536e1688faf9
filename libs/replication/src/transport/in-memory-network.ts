import type { Clock } from '../time/clock';
import type { Random } from '../time/random';
import type { InMemoryLink, Interceptor } from './in-memory-link';
import { InMemoryTransport } from './in-memory-transport';

export type { InterceptDecision, InterceptedMessage, Interceptor } from './in-memory-link';

/** How a directed link behaves: each message is delayed uniformly in [min, max] and lost with `lossRate`. */
export interface LinkConditions {
  minDelayMs: number;
  maxDelayMs: number;
  lossRate: number;
}

const PERFECT: LinkConditions = { minDelayMs: 0, maxDelayMs: 0, lossRate: 0 };

/**
 * A network inside one process: every message is a timer on the injected clock, so under a virtual
 * clock and a seeded random source the whole exchange replays exactly. Links can be slowed, made
 * lossy or cut (partitions); random delays reorder messages. A cut link drops messages both when they
 * are sent and when they would arrive, as a partition that starts mid-flight does.
 *
 * Node ids are just numbers here; the simulator also routes metadata-store traffic through it under a
 * pseudo node id.
 */
export class InMemoryNetwork implements InMemoryLink {
  private readonly endpoints = new Map<number, InMemoryTransport>();
  private readonly cut = new Set<string>();
  private readonly links = new Map<string, Partial<LinkConditions>>();
  private defaults: LinkConditions;
  /** Consulted for every transport message (not for raw `deliver` calls); null = deliver all. */
  interceptor: Interceptor | null = null;
  /** Messages handed to `deliver` and those dropped (loss or cut), for reports. */
  readonly stats = { sent: 0, dropped: 0 };

  constructor(
    readonly clock: Clock,
    private readonly random: Random,
    defaults: Partial<LinkConditions> = {},
  ) {
    this.defaults = { ...PERFECT, ...defaults };
  }

  /** A fresh endpoint for `nodeId` (a restarted node gets a new one; the old one stops receiving). */
  connect(nodeId: number): InMemoryTransport {
    const transport = new InMemoryTransport(nodeId, this);
    this.endpoints.set(nodeId, transport);
    return transport;
  }

  endpoint(nodeId: number): InMemoryTransport | undefined {
    const t = this.endpoints.get(nodeId);
    return t && !t.isClosed ? t : undefined;
  }

  setDefaults(conditions: Partial<LinkConditions>): void {
    this.defaults = { ...this.defaults, ...conditions };
  }

  /** Overrides the conditions of the directed link `from → to` (e.g. a slow follower). */
  setLink(from: number, to: number, conditions: Partial<LinkConditions> | null): void {
    if (conditions === null) this.links.delete(key(from, to));
    else this.links.set(key(from, to), { ...this.links.get(key(from, to)), ...conditions });
  }

  /** Cuts every link between the two groups, both directions. */
  partition(groupA: readonly number[], groupB: readonly number[]): void {
    for (const a of groupA)
      for (const b of groupB) {
        this.cut.add(key(a, b));
        this.cut.add(key(b, a));
      }
  }

  /** Cuts only `from → to` (asymmetric partitions). */
  cutLink(from: number, to: number): void {
    this.cut.add(key(from, to));
  }

  isCut(from: number, to: number): boolean {
    return this.cut.has(key(from, to));
  }

  /** Restores every cut link (conditions set with `setLink` stay). */
  heal(): void {
    this.cut.clear();
  }

  /** Restores the links between the two groups. */
  healBetween(groupA: readonly number[], groupB: readonly number[]): void {
    for (const a of groupA)
      for (const b of groupB) {
        this.cut.delete(key(a, b));
        this.cut.delete(key(b, a));
      }
  }

  /**
   * `from`'s endpoint closed (its process died or stopped): `to` learns it after the link's delay, as a
   * TCP peer sees the connection close — unless the link is cut, when nothing arrives (a partition is
   * silent). A node restarted meanwhile hears about the connection it never had, which is harmless.
   */
  announceClosed(from: number, to: number): void {
    this.deliver(from, to, () => this.endpoint(to)?.peerWentAway(from));
  }

  /** Runs `arrive` after the link's delay unless the message is lost or the link is cut. */
  deliver(from: number, to: number, arrive: () => void): void {
    this.stats.sent++;
    const c = { ...this.defaults, ...this.links.get(key(from, to)) };
    if (this.isCut(from, to) || (c.lossRate > 0 && this.random.next() < c.lossRate)) {
      this.stats.dropped++;
      return;
    }
    const span = c.maxDelayMs - c.minDelayMs;
    const delay = c.minDelayMs + (span > 0 ? Math.floor(this.random.next() * (span + 1)) : 0);
    this.clock.schedule(delay, () => {
      if (this.isCut(from, to)) {
        this.stats.dropped++;
        return;
      }
      arrive();
    });
  }
}

function key(from: number, to: number): string {
  return `${from}>${to}`;
}
