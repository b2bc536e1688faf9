import type { TopicPartitions } from '@cohort/protocol';
import type { CohortError } from '../errors/cohort-error';

/** One lease as the application sees it: offsets `firstOffset`..`lastOffset` (inclusive) of one partition. */
export interface Lease {
  readonly topic: string;
  readonly partition: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
  /** How many times these offsets have been leased, this time included (1 on the first delivery). */
  readonly deliveryCount: number;
  /** Wall time (ms since the epoch) when the lock runs out unless renewed; moved on by each renewal. */
  lockExpiresAt: number;
}

/** What the application acknowledges: one offset, or a range of them. */
export type Acknowledgement = {
  topic: string;
  partition: number;
  type: 'accept' | 'release' | 'reject' | 'gap';
} & ({ offset: number } | { firstOffset: number; lastOffset: number });

export type ShareMemberState = 'idle' | 'joining' | 'stable' | 'stopping' | 'stopped';

export interface ShareJoinedEvent {
  memberId: string;
  memberEpoch: number;
}

export interface ShareAssignedEvent {
  /** The member's whole assignment (the partitions it may lease from; shared with other members). */
  partitions: TopicPartitions[];
  memberEpoch: number;
}

export interface LeasesLostEvent {
  /** Leases (or what was left unacknowledged of them) that are no longer this member's. */
  leases: Lease[];
  reason: string;
}

export interface AcknowledgedEvent {
  topic: string;
  partition: number;
  /** The runs that were sent, each with its type. */
  offsets: { firstOffset: number; lastOffset: number; type: 'accept' | 'release' | 'reject' | 'gap' }[];
  /** Null when the coordinator committed them; else why it refused them (nothing of the partition's batch applied). */
  error: CohortError | null;
}

export interface ShareMemberEvents {
  joined: ShareJoinedEvent;
  assigned: ShareAssignedEvent;
  lost: LeasesLostEvent;
  acknowledged: AcknowledgedEvent;
  /** A retriable failure the member is riding out. */
  error: CohortError;
  /** Fatal: the member has stopped. */
  crash: CohortError;
}
