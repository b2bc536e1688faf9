import type { Clock, LogRecord } from '@cohort/replication';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { ConsumerGroupStore } from './consumer-group-replay';
import type { EpochRecorder } from './epoch-recorder';
import { UncommittedWrites } from './uncommitted-writes';

/**
 * The consumer groups' writes as Kafka's runtime makes them: a write's records are applied at once, so
 * the next request sees them (`UncommittedWrites`), and taken back if the write fails. A write that
 * leaves its group converged also carries the record that says so in the group's epoch history, and the
 * epoch events it recorded reach the metrics only once it commits.
 */
export class ConsumerGroupWrites {
  readonly uncommitted: UncommittedWrites;

  constructor(
    private readonly groups: ConsumerGroupStore,
    private readonly epochs: EpochRecorder,
    private readonly clock: Clock,
  ) {
    this.uncommitted = new UncommittedWrites(groups);
  }

  /**
   * Applies `records` now and returns the write that commits them, taking them back if it fails. When
   * they leave `groupId` converged, the write also records that in the group's epoch history; `settled`
   * (if any) learns the outcome.
   */
  written<T>(
    records: LogRecord[],
    response?: T,
    groupId?: string,
    settled?: (ok: boolean) => void,
  ): CoordinatorResult<T> {
    if (records.length === 0) return { records, response };
    return this.apply(records, response, groupId, settled).result;
  }

  /** `written`, with the applied write that `uncommitted.takeBack` can undo until the result is run. */
  apply<T>(
    records: LogRecord[],
    response?: T,
    groupId?: string,
    settled?: (ok: boolean) => void,
  ): { result: CoordinatorResult<T>; write: object } {
    const writes = this.uncommitted;
    const write = writes.apply(records);
    const group = groupId === undefined ? undefined : this.groups.get(groupId);
    const converged = group && this.epochs.convergenceRecord(group, this.clock.now());
    if (converged) {
      writes.extend(write, [converged]);
      records.push(converged);
    }
    const events = this.epochs.take();
    const result: CoordinatorResult<T> = {
      records,
      response,
      appendFuture: (outcome) => {
        if (outcome.ok) {
          writes.committed(write);
          this.epochs.committed(events);
        } else writes.failed(write);
        settled?.(outcome.ok);
      },
    };
    return { result, write };
  }
}
