import type { CoordinatorResult } from '../runtime/coordinator-result';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  ConsumerRequestContext,
} from './consumer-heartbeat.types';

/** One heartbeat as a batch takes it (heartbeat-batch.ts: what the batch answers and hands to the shard, below). */
export interface BatchedHeartbeat {
  request: ConsumerGroupHeartbeatRequest;
  context: ConsumerRequestContext;
}

/** How one heartbeat of a batch is answered. */
export interface BatchAnswer {
  response: ConsumerGroupHeartbeatResponse;
  /** The answer leaves once the batch's writes are committed (false: an error, answered at once). */
  waits: boolean;
}

export interface HeartbeatBatchHooks {
  /**
   * The heartbeat's own result if it must run alone, as one request (a group id that names a classic
   * group: the conversion's records go with the heartbeat's), or null when it joins the batch.
   */
  alone(heartbeat: BatchedHeartbeat): CoordinatorResult<ConsumerGroupHeartbeatResponse> | null;
  /** A heartbeat failed with something that is not a protocol error (a bug): it is answered UNKNOWN_SERVER_ERROR. */
  onBug(error: unknown): void;
  /** A group's target could not be computed (its assignor threw): told once per group, before its heartbeats fail. */
  onTargetFailed?(groupId: string, heartbeats: number, error: unknown): void;
}

export interface BatchOutcome {
  answers: BatchAnswer[];
  /** What the batch wrote and armed, in the order it was computed: each is run by the shard in turn. */
  runs: CoordinatorResult<unknown>[];
  /** groupId → the members to tell to heartbeat now once the batch's writes commit (SPEC's HeartbeatNow). */
  tell: Map<string, Set<string>>;
}
