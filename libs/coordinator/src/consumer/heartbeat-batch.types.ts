import type { CoordinatorResult } from '../runtime/coordinator-result';
import { memberKeys } from './member-keys';
import type { ParkedJoin } from './member-progress';
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
  /**
   * The time now. With it, a heartbeat whose member is left waiting for partitions other members must
   * release has its answer held until they are (`HeldAnswers`), for a bounded time.
   */
  clock?(): number;
  /** A group's target could not be computed (its assignor threw): told once per group, before its heartbeats fail. */
  onTargetFailed?(groupId: string, heartbeats: number, error: unknown): void;
  /**
   * Groups a member left or was fenced from before the batch (ConsumerGroupManagerDeps.groupMoved): their
   * targets are computed in its first round even without a heartbeat of theirs in it.
   */
  moved?: ReadonlySet<string>;
}

export interface BatchOutcome {
  answers: BatchAnswer[];
  /** What the batch wrote and armed, in the order it was computed: each is run by the shard in turn. */
  runs: CoordinatorResult<unknown>[];
  /** groupId → the members to tell to heartbeat now once the batch's writes commit (SPEC's HeartbeatNow). */
  tell: Map<string, Set<string>>;
}

/**
 * A heartbeat whose first half is applied, waiting for its group's target: what its second half needs
 * and, until the target is written, what takes the first half back. Thousands wait across turns in a
 * burst, so each keeps no more than that: the first half's records and the group's subscription as
 * the change saw it would otherwise live until the member's turn, long after their write committed.
 */
export interface Parked {
  index: number;
  join: ParkedJoin;
  /** Its first half: the records applied (taken back if the target fails) and the run that writes them; dropped once the target is written. */
  write?: object;
  run?: CoordinatorResult<unknown>;
  /** `keysOf` it, once parked: parking and answering each need them. */
  keys?: readonly string[];
  /** The step whose writes carry its records so far (its first half, then a held answer's): if they fail, so does the heartbeat. */
  writes?: StepWrites;
}

/**
 * The writes of one step of a batch, shared by the heartbeats whose records they carry and whose
 * answers come in a later step: those parked in it (their first halves, with the targets) and those
 * whose answers it held. Once those writes failed and were taken back, such a heartbeat was answered
 * from the group without them: a joiner as a stranger (UNKNOWN_MEMBER_ID, or GROUP_ID_NOT_FOUND for a
 * group the burst created), a held answer as if its records had been written. A heartbeat answered in
 * the step of its writes waits for them, and gets their error.
 */
export interface StepWrites {
  /** The answer of each such heartbeat not answered yet, once the writes failed. */
  failure?: ConsumerGroupHeartbeatResponse;
}

/** The keys a parked heartbeat is known by: its member id and, for a static member, `\u0000` and its instance id. */
export function keysOf({ join }: Parked): readonly string[] {
  const { updated } = join.prepared;
  return memberKeys(updated.memberId, updated.instanceId);
}
