/**
 * Shared, frozen targets of the fresh homogeneous deal's direct runs (fresh-homogeneous.ts): a member
 * whose run is `n` partitions of one topic starting at `first` gets `[{ topic, partitions }]` with the
 * partitions in the order Java's set of them iterates, which follows from (topic, first, n) alone. A
 * fresh group of 10,000 members made 10,000 such targets per call, three objects each: about 2 MB the
 * young generation then had to collect, and copy when a collection came while the call still held
 * them. Each target is made once and handed to every later result that needs the same run, as the
 * single-partition entries are (common/single-partition-entries.ts), frozen from its second result on
 * so that no caller can change one result through another. Not from its first: freezing the 30,000
 * objects of a first call doubled that call's time, and a target only one result holds is that
 * caller's own. The deal checks that the first caller left it unchanged before sharing it. Nor does a
 * topic's first deal pool anything (a process's first call measured 40% dearer with its targets
 * pooled): its targets are pooled from its second deal, and shared from the third.
 *
 * The pool is bounded by the partitions its targets hold: past `capacity` it is dropped and starts
 * again. Results already returned keep their targets; only sharing with later results is lost.
 */
import type { TopicPartitions } from '@cohort/protocol';

/** About 20 MB of targets at most (a target of ten partitions is ~250 bytes). */
export const DEFAULT_DIRECT_RUN_POOL_CAPACITY = 1 << 20;

/** One topic's targets, by the run's first partition (runs of one topic start at distinct partitions in a deal). */
export interface TopicRunTargets {
  readonly partitions: number;
  readonly targets: (readonly TopicPartitions[] | undefined)[];
  /** Per first partition: the run's length of the target held there. */
  readonly lengths: Int32Array;
  /** Per first partition: 1 once the target held there is frozen (handed to a second result). */
  readonly frozen: Uint8Array;
}

/** Topics remembered as dealt once (a name and a number each). */
const MAX_SEEN = 100_000;

export class DirectRunPool {
  private byTopic = new Map<string, TopicRunTargets>();
  /** The topics dealt once, not pooled yet, and their partition counts then. */
  private seen = new Map<string, number>();
  private pooled = 0;

  constructor(private readonly capacity = DEFAULT_DIRECT_RUN_POOL_CAPACITY) {}

  /**
   * The targets of a topic of `partitions` partitions whose runs start below `starts`, or null for its
   * first deal (nothing pooled). A topic whose partition count changed starts afresh (its targets are
   * the same lists, but the slots are sized anew).
   */
  topic(name: string, partitions: number, starts: number): TopicRunTargets | null {
    let runs = this.byTopic.get(name);
    if (runs === undefined || runs.partitions !== partitions || runs.lengths.length < starts) {
      if (runs === undefined && this.seen.get(name) !== partitions) {
        if (this.seen.size >= MAX_SEEN) this.seen.clear();
        this.seen.set(name, partitions);
        return null;
      }
      runs = {
        partitions,
        targets: new Array(starts),
        lengths: new Int32Array(starts),
        frozen: new Uint8Array(starts),
      };
      this.byTopic.set(name, runs);
    }
    return runs;
  }

  /** Counts a target of `n` partitions just made, dropping the pool when it is full. */
  made(n: number): void {
    this.pooled += n;
    if (this.pooled > this.capacity) {
      this.byTopic = new Map();
      this.seen = new Map();
      this.pooled = 0;
    }
  }

  /** Partitions held by the pooled targets. */
  get size(): number {
    return this.pooled;
  }
}

export const directRunPool = new DirectRunPool();
