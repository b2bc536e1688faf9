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

  /** `metrics` as the coordinator's listener, with its group removals also sent here. */
  relaying(metrics: CoordinatorMetrics): CoordinatorMetrics {
    return new Proxy(metrics, {
      get: (target, key, receiver) => {
        if (key !== 'onGroupRemoved') return Reflect.get(target, key, receiver) as unknown;
        return (groupId: string) => {
          target.onGroupRemoved?.(groupId);
          this.removed(groupId);
        };
      },
    });
  }
}
