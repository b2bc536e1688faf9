import type { PartitionState } from '../metadata/partition-state';
import { preferredLeaderChange, type LiveNodes } from './partition-change';

/**
 * Preferred-leader rebalancing (auto.leader.rebalance.enable, Kafka's
 * `KafkaController.checkAndTriggerAutoLeaderRebalance`): for each node, the share of the partitions it
 * is the preferred leader of (`replicas[0]`) that another node leads; when that share exceeds
 * LEADER_IMBALANCE_PER_BROKER_PERCENTAGE, every one of them whose preferred replica can take over (a
 * live ISR member with its admitted incarnation) gets a PREFERRED election — a new leader epoch, so the
 * old leader is fenced as in any election. Returns the changes to write.
 */
export function preferredLeaderElections(
  states: PartitionState[],
  nodes: LiveNodes,
  imbalancePercentage: number,
): PartitionState[] {
  const byPreferred = new Map<number, PartitionState[]>();
  for (const s of states) {
    const preferred = s.replicas[0];
    if (preferred === undefined) continue;
    let list = byPreferred.get(preferred);
    if (!list) byPreferred.set(preferred, (list = []));
    list.push(s);
  }
  const changes: PartitionState[] = [];
  for (const list of byPreferred.values()) {
    const notLed = list.filter((s) => s.leader !== s.replicas[0]);
    if (notLed.length === 0 || (notLed.length * 100) / list.length <= imbalancePercentage) continue;
    for (const s of notLed) {
      const next = preferredLeaderChange(s, nodes);
      if (next) changes.push(next);
    }
  }
  return changes;
}

/** What a node leads and what it would lead as preferred replica, for reports. */
export function leaderImbalanceOf(states: PartitionState[], nodeId: number): { preferred: number; notLed: number } {
  const preferred = states.filter((s) => s.replicas[0] === nodeId);
  return { preferred: preferred.length, notLed: preferred.filter((s) => s.leader !== nodeId).length };
}
