import { Injectable } from '@nestjs/common';
import type { CoordinatorMetrics } from '@cohort/coordinator';

/**
 * The coordinator's "group removed" events (a group deleted, or emptied by offset expiry), relayed to
 * whoever counts groups per principal. Built before the node (it takes no dependencies), so that the
 * node's factory can wire it and the creation limits, which need the node, can listen.
 */
@Injectable()
export class GroupRemovals {
  private readonly listeners: Array<(groupId: string) => void> = [];

  listen(listener: (groupId: string) => void): void {
    this.listeners.push(listener);
  }

  removed(groupId: string): void {
    for (const listener of this.listeners) listener(groupId);
  }

  /**
   * `metrics` as the coordinator's listener, with its group removals also sent here: an object of its
   * methods, each bound to it. Not a Proxy: the coordinator reports to it several times per request (a
   * lease, an acknowledgement), and through a Proxy each call, and each field the method then read on
   * `this`, went through the trap.
   */
  relaying(metrics: CoordinatorMetrics): CoordinatorMetrics {
    const relayed: Record<string, unknown> = {};
    for (
      let o: object | null = metrics;
      o !== null && o !== Object.prototype;
      o = Object.getPrototypeOf(o) as object | null
    )
      for (const key of Object.getOwnPropertyNames(o)) {
        const method: unknown = Object.getOwnPropertyDescriptor(o, key)?.value;
        if (key !== 'constructor' && !(key in relayed) && typeof method === 'function')
          relayed[key] = (method as (...args: unknown[]) => unknown).bind(metrics);
      }
    relayed.onGroupRemoved = (groupId: string) => {
      metrics.onGroupRemoved?.(groupId);
      this.removed(groupId);
    };
    return relayed as CoordinatorMetrics;
  }
}
