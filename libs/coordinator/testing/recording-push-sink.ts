import type { CoordinatorMovedPush, HeartbeatNowPush, RebalanceInProgressPush } from '@cohort/protocol';
import type { PushSink } from '@cohort/coordinator/ports/group-coordinator.api';

/** A PushSink that remembers every push, for assertions. */
export class RecordingPushSink implements PushSink {
  readonly rebalances: { connectionIds: string[]; push: RebalanceInProgressPush }[] = [];
  readonly moves: { connectionIds: string[]; push: CoordinatorMovedPush }[] = [];
  readonly heartbeatNows: { connectionId: string; push: HeartbeatNowPush }[] = [];

  rebalanceInProgress(connectionIds: string[], push: RebalanceInProgressPush): void {
    this.rebalances.push({ connectionIds: [...connectionIds].sort(), push });
  }

  coordinatorMoved(connectionIds: string[], push: CoordinatorMovedPush): void {
    this.moves.push({ connectionIds: [...connectionIds].sort(), push });
  }

  heartbeatNow(connectionId: string, push: HeartbeatNowPush): void {
    this.heartbeatNows.push({ connectionId, push });
  }
}
