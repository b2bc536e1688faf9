import type * as P from '@cohort/protocol';

/**
 * The answer's partitions, each made when first named, in that order. Nearly every acquire names one
 * partition: it is kept as it is, and only a second one starts a map keyed by topic and partition.
 */
export class AnswerPartitions {
  private first: P.ShareAcquirePartition | undefined;
  private others: Map<string, P.ShareAcquirePartition> | undefined;

  of(topic: string, partition: number): P.ShareAcquirePartition {
    const first = this.first;
    if (first === undefined) return (this.first = answerPartition(topic, partition));
    if (first.topic === topic && first.partition === partition) return first;
    const key = `${topic}\u0000${partition}`;
    const others = (this.others ??= new Map());
    let found = others.get(key);
    if (found === undefined) others.set(key, (found = answerPartition(topic, partition)));
    return found;
  }

  /** The partitions `keep` keeps, in the order they were first named. */
  answered(keep: (partition: P.ShareAcquirePartition) => boolean): P.ShareAcquirePartition[] {
    const kept: P.ShareAcquirePartition[] = [];
    if (this.first !== undefined && keep(this.first)) kept.push(this.first);
    if (this.others !== undefined) for (const e of this.others.values()) if (keep(e)) kept.push(e);
    return kept;
  }
}

function answerPartition(topic: string, partition: number): P.ShareAcquirePartition {
  return { topic, partition, errorCode: 0, acknowledgeErrorCode: 0, leases: [] };
}
