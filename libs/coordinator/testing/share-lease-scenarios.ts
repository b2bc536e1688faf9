import type { ShareTopicPartition } from '@cohort/coordinator/share/share-ports';

/**
 * The histories of share-lease-candidates.property.spec.ts: what a step does to a share group's
 * partitions, and the counterexamples random seeds found, replayed by every run.
 */

export type AckType = 0 | 1 | 2 | 3 | 4;

/** Part of a lease some member was answered with, acknowledged by that member. */
export interface AckStep {
  kind: 'ack';
  pick: number;
  skip: number;
  span: number;
  types: AckType[];
  /** Carried by a ShareAcquire rather than sent as a ShareAcknowledge. */
  onAcquire: boolean;
}

export type Step =
  | { kind: 'produce'; at: number; grow: number }
  | { kind: 'logStart'; at: number; by: number }
  | { kind: 'assign'; member: number; mask: number }
  | { kind: 'leave'; member: number }
  | { kind: 'acquire'; member: number; maxRecords: number; batchSize: number | null; held: boolean }
  | AckStep
  | { kind: 'advance'; ms: number }
  | { kind: 'refuseNextWrite' }
  | { kind: 'holdCommits' }
  | { kind: 'commit' }
  | { kind: 'redeliver'; at: number }
  | { kind: 'reset'; at: number; to: 'earliest' | 'latest' }
  | { kind: 'restart' };

export interface Scenario {
  /** The partitions the history works (`at` picks one of them). */
  inPlay: ShareTopicPartition[];
  /** Each member's first assignment, a bit per partition in play; 0: not a member yet. */
  masks: number[];
  /** The end offset of every partition in play, reported before the first step. */
  firstEnd: number;
  autoOffsetReset: 'earliest' | 'latest';
  deliveryCountLimit: number;
  maxRecordLocks: number;
  maxAcquireRecords: number;
  steps: Step[];
}

/** A found history on one partition: one offset, earliest, a delivery limit of 2, one record per acquire. */
function found(history: Pick<Scenario, 'inPlay' | 'masks' | 'steps'>): Scenario {
  return {
    firstEnd: 1,
    autoOffsetReset: 'earliest',
    deliveryCountLimit: 2,
    maxRecordLocks: 2,
    maxAcquireRecords: 1,
    ...history,
  };
}

/**
 * What random seeds found while a lock run out, a member gone and a redelivery marked their partition
 * only once the write recording them ended, though the offsets were leasable at once (commits held back
 * in between): replayed by every run.
 */
export const FOUND: Scenario[] = [
  found({
    inPlay: [{ topic: 'logs', partition: 0 }],
    masks: [0, 1, 0],
    steps: [
      { kind: 'acquire', member: 1, maxRecords: 1, batchSize: null, held: false },
      { kind: 'holdCommits' },
      { kind: 'advance', ms: 1000 },
    ],
  }),
  found({
    inPlay: [{ topic: 'jobs', partition: 0 }],
    masks: [1, 0, 1],
    steps: [
      { kind: 'acquire', member: 0, maxRecords: 1, batchSize: null, held: false },
      { kind: 'holdCommits' },
      { kind: 'leave', member: 0 },
    ],
  }),
  found({
    inPlay: [{ topic: 'jobs', partition: 0 }],
    masks: [0, 0, 1],
    steps: [
      { kind: 'acquire', member: 2, maxRecords: 1, batchSize: null, held: false },
      { kind: 'restart' },
      { kind: 'acquire', member: 2, maxRecords: 1, batchSize: null, held: false },
      { kind: 'ack', pick: 0, skip: 0, span: 1, types: [2], onAcquire: false },
      { kind: 'holdCommits' },
      { kind: 'redeliver', at: 0 },
    ],
  }),
];
