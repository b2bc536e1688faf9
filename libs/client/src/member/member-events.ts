import type { TopicPartitions } from '@cohort/protocol';
import type { CohortError } from '../errors/cohort-error';

/**
 * What `member.state` can be (libs/client/README.md, "State"): `syncing` is the classic protocol's,
 * `reconciling` the consumer protocol's.
 */
export type MemberState = 'idle' | 'joining' | 'syncing' | 'reconciling' | 'stable' | 'stopping' | 'stopped';

export interface CommittedOffset {
  topic: string;
  partition: number;
  /** The next offset to process (Kafka's convention); null when nothing is committed. */
  offset: number | null;
  metadata?: string | null;
}

export interface ProcessedOffset {
  topic: string;
  partition: number;
  /** The next offset to process. */
  offset: number;
  metadata?: string | null;
}

export interface JoinedEvent {
  memberId: string;
  generationId: number;
  leader: boolean;
  protocol: string | null;
}

export interface AssignedEvent {
  /** The partitions this member gained (eager: its whole assignment; cooperative: only the new ones). */
  partitions: TopicPartitions[];
  generationId: number;
}

export interface RevokedEvent {
  partitions: TopicPartitions[];
  generationId: number;
}

export interface LostEvent {
  partitions: TopicPartitions[];
  reason: string;
}

export interface RebalancingEvent {
  generationId: number;
  reason: string;
}

export interface MemberEvents {
  joined: JoinedEvent;
  assigned: AssignedEvent;
  revoked: RevokedEvent;
  lost: LostEvent;
  rebalancing: RebalancingEvent;
  committed: { offsets: CommittedOffset[] };
  error: CohortError;
  crash: CohortError;
}
