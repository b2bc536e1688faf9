import type { LogRecord } from '@cohort/replication';
import type { CoordinatorMetrics } from '../ports/coordinator-metrics.port';
import type { ConsumerGroup } from './consumer-group';
import { consumerGroupEpochRecord } from './consumer-records';
import type { EpochBump, EpochBumpCause } from './epoch-history';

/** What a write recorded in the groups' histories, reported to the metrics once it is committed. */
export interface EpochEvents {
  bumps: { groupId: string; bump: EpochBump }[];
  converged: { groupId: string; bump: EpochBump }[];
}

const NO_EVENTS: EpochEvents = Object.freeze({ bumps: [], converged: [] }) as unknown as EpochEvents;

/**
 * Writes the consumer groups' epoch history (`EpochHistory`) into their epoch records: a bump's record
 * carries the history with the bump added, and once a write leaves its group Stable (or Empty) the write
 * gets one more epoch record, at the same epoch, with the newest bump closed. What a write recorded is
 * counted in the metrics only when the write commits, so a taken-back write counts nothing.
 */
export class EpochRecorder {
  private events: EpochEvents = { bumps: [], converged: [] };

  constructor(private readonly metrics: CoordinatorMetrics = {}) {}

  /** The epoch record of a bump to `groupEpoch` for `cause`, with `members` members after it. */
  bumpRecord(
    group: ConsumerGroup,
    groupEpoch: number,
    metadataHash: number,
    cause: EpochBumpCause,
    members: number,
    now: number,
  ): LogRecord {
    const bump: EpochBump = { groupEpoch, ...cause, startedAt: now, completedAt: null, members };
    this.events.bumps.push({ groupId: group.groupId, bump });
    return consumerGroupEpochRecord(group.groupId, groupEpoch, metadataHash, now, group.history.withBump(bump));
  }

  /** After a write's records are applied to `group`: the record that closes its newest bump, if it converged. */
  convergenceRecord(group: ConsumerGroup | undefined, now: number): LogRecord | undefined {
    if (!group || (group.state !== 'Stable' && group.state !== 'Empty')) return undefined;
    const history = group.history.withConvergence(group.assignmentEpoch, group.state === 'Empty', now);
    if (!history) return undefined;
    this.events.converged.push({ groupId: group.groupId, bump: history[history.length - 1] });
    return consumerGroupEpochRecord(group.groupId, group.groupEpoch, group.metadataHash, now, history);
  }

  /** What was recorded since the last call, for the write that carries it. */
  take(): EpochEvents {
    const taken = this.events;
    // Nothing recorded: the shared empty answer, never the live list, which a later write would fill
    // and which both writes would then count when they commit.
    if (taken.bumps.length === 0 && taken.converged.length === 0) return NO_EVENTS;
    this.events = { bumps: [], converged: [] };
    return taken;
  }

  /** A step that failed wrote nothing: what it recorded is forgotten. */
  discard(): void {
    this.take();
  }

  /** The write that carried `events` committed. */
  committed(events: EpochEvents): void {
    for (const { groupId, bump } of events.bumps) this.metrics.onConsumerEpochBump?.(groupId, bump.reason);
    for (const { groupId, bump } of events.converged)
      this.metrics.onConsumerGroupConverged?.(groupId, bump.reason, bump.completedAt! - bump.startedAt);
  }
}
