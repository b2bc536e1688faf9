import type { LogRecord } from '@cohort/replication';
import type { TimerOp } from '../timers/timer-op';

/** How the records of one operation ended: committed at these log offsets, or failed with a store error. */
export type WriteOutcome =
  { ok: true; baseOffset: number; lastOffset: number } | { ok: false; storeError: number; message: string };

/**
 * What every coordinator handler returns to the shard's runtime (Kafka's `CoordinatorResult`,
 * coordinator-common `runtime/CoordinatorResult.java`): the records to append, the response, and
 * for classic groups the `appendFuture` that applies the write's effect when the records commit.
 *
 * - No records: the response leaves at once.
 * - Records: they join the runtime's open batch; once the batch is committed `appendFuture` runs, then
 *   `response` leaves. If the batch fails, `appendFuture` runs with the failure and the response is
 *   `onFailure(outcome)` (the handler's mapping of the store error to its API's error codes). If the
 *   commit is not seen in time, the response is `onFailure` of the timeout at once, while `appendFuture`
 *   waits for the log's verdict (see `replayRecords`).
 * - `response` undefined: the reply is parked in its group's `ParkedReplies` (JoinGroup, SyncGroup:
 *   Kafka's `awaitingJoinFuture` / `awaitingSyncFuture`) and leaves when the group completes the phase,
 *   which for a sync is this result's `appendFuture`; the result only carries the write.
 * - `timers`: the timers the operation schedules or cancels, applied in order when the result is run.
 * - `followUps`: writes the operation's phase completions started that nobody waits on (a LeaveGroup that
 *   empties the group writes its Empty metadata); they join the same batch, ahead of `records`, and their
 *   failure does not fail this result.
 */
export interface CoordinatorResult<T> {
  records: LogRecord[];
  response?: T;
  appendFuture?: (outcome: WriteOutcome) => void;
  onFailure?: (outcome: Extract<WriteOutcome, { ok: false }>) => T;
  timers?: TimerOp[];
  followUps?: CoordinatorResult<never>[];
  /** The records could not be built (encoding failed): the write fails as a refused append would. */
  unwritable?: string;
  /**
   * Kafka's `replayRecords = false`: the write's effect is the handler's own state, not a replay of its
   * records (classic group metadata). Its appendFuture then runs when the write times out too, with the
   * timeout, as Kafka's does. Otherwise the appendFuture applies what the records say, so it runs only
   * once the log has decided: a timed-out write is answered with the timeout (`onFailure`; the outcome is
   * unknown) and its appendFuture still waits for the commit or the failure.
   */
  replayRecords?: false;
  /**
   * Kafka's write operation that produced no records: its response still waits until the writes already
   * handed to the runtime are committed (it may have read their uncommitted state), and fails with them.
   */
  awaitsPendingWrites?: boolean;
}

/** A result that writes nothing. */
export function answer<T>(response: T): CoordinatorResult<T> {
  return { records: [], response };
}

/** A result whose reply is parked elsewhere and that writes nothing. */
export const PARKED: CoordinatorResult<never> = Object.freeze({ records: [] }) as CoordinatorResult<never>;
