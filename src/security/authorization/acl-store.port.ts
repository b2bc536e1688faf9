import type { AclBinding } from '@cohort/protocol';

/** Injection token of the node's AclStore. */
export const ACL_STORE = Symbol('ACL_STORE');

/**
 * Where the bindings live: a file under DATA_DIR in embedded mode, the metadata store (Redis) in
 * cluster mode. The authorizer of every node keeps a copy; the store tells it of changes.
 */
export interface AclStore {
  /** Every stored binding. */
  load(): Promise<AclBinding[]>;
  /**
   * Adds bindings (one already stored is kept once) and returns the full set after the change.
   * Durable before it resolves.
   */
  add(bindings: readonly AclBinding[]): Promise<AclBinding[]>;
  /** Removes exactly these stored bindings; returns the ones that were there and the full set after. */
  remove(bindings: readonly AclBinding[]): Promise<{ removed: AclBinding[]; all: AclBinding[] }>;
  /** Called with the full set whenever it may have changed elsewhere (another node); at most one listener. */
  watch(listener: (bindings: AclBinding[]) => void): void;
  close(): Promise<void>;
}
