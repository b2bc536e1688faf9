import type { MetadataChangeListener } from '../metadata-store.port';
import { copyPartitionState, type PartitionState } from '../partition-state';
import { decodePartitionState } from './partition-state-json';

/**
 * The watchers of one store and the decoding of the hints published on the cluster's channel:
 * `N` (registrations changed), `C` (controller lease changed), `P<json>` (a partition state written).
 * Each watcher is called on a microtask of its own with its own copy of a state, as the in-memory
 * store does, so a watcher never runs inside the Redis client's reply handling.
 */
export class ChangeFeed {
  private readonly listeners = new Set<MetadataChangeListener>();

  add(listener: MetadataChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  clear(): void {
    this.listeners.clear();
  }

  /** Delivers one published hint; returns the partition state it carried, if any. */
  dispatch(message: string): PartitionState | null {
    switch (message[0]) {
      case 'N':
        this.nodesChanged();
        return null;
      case 'C':
        this.controllerChanged();
        return null;
      case 'P': {
        const state = decodePartitionState(message.slice(1));
        this.partitionChanged(state);
        return state;
      }
      default:
        throw new Error(`metadata store: unknown change hint ${JSON.stringify(message.slice(0, 50))}`);
    }
  }

  nodesChanged(): void {
    this.deliver((l) => l.onNodesChanged?.());
  }

  controllerChanged(): void {
    this.deliver((l) => l.onControllerChanged?.());
  }

  partitionChanged(state: PartitionState): void {
    this.deliver((l) => l.onPartitionChanged?.(copyPartitionState(state)));
  }

  private deliver(call: (l: MetadataChangeListener) => void): void {
    for (const l of [...this.listeners]) queueMicrotask(() => call(l));
  }
}
