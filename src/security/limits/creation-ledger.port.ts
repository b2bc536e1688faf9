/** Injection token of the node's CreationLedger. */
export const CREATION_LEDGER = Symbol('CREATION_LEDGER');

/** What a principal creates and is counted for (MAX_GROUPS_PER_PRINCIPAL, MAX_TOPICS_PER_PRINCIPAL). */
export type CreatedKind = 'group' | 'topic';

/** `claimed`: now charged to the principal; `held`: it was already; `full`: the principal holds `max` already. */
export type ClaimOutcome = 'claimed' | 'held' | 'full';

/**
 * Who created which group or topic, durable so that a restart does not hand every principal a fresh
 * allowance: a file under DATA_DIR in embedded mode, the metadata store's Redis in cluster mode (one
 * count for the whole cluster, whichever node a creation went through).
 */
export interface CreationLedger {
  /**
   * Charges `name` to `principal` unless it already holds `max` names of the kind; atomic, so two
   * nodes cannot both hand out the last slot. A name charged to someone else is moved to `principal`:
   * the caller checked that it no longer exists, so the other principal's entry was stale.
   */
  claim(kind: CreatedKind, principal: string, name: string, max: number): Promise<ClaimOutcome>;
  /** `name` no longer exists: whoever created it gets the slot back. */
  release(kind: CreatedKind, name: string): Promise<void>;
  /** The names charged to `principal`. */
  held(kind: CreatedKind, principal: string): Promise<string[]>;
  close(): Promise<void>;
}
