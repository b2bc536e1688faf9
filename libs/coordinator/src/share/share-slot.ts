import type { ShareChange, SharePartition } from './share-partition';

/** One share partition of a group, with where it lives. */
export interface ShareSlot {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly state: SharePartition;
  /** Its lock timer's key, built once: the timer is re-armed after every write of the slot. */
  readonly lockKey: string;
  /** What its lock timer runs, made once with the slot for the same reason. */
  readonly onLockTimer: () => void;
}

/** A change of a slot waiting for the write that carries it. */
export interface SlotChange {
  slot: ShareSlot;
  change: ShareChange;
}
