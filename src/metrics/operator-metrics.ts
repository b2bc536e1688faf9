import { Gauge, type Registry } from 'prom-client';
import type { ConsumerGroupStat, GroupLagSummary } from '@cohort/coordinator';
import { LAG_STATUSES } from '@cohort/protocol';
import type { ClusterStatus } from '../node/cluster-status';

/** What the operator metrics read at each scrape. */
export interface OperatorMetricsSource {
  /** The `limit` groups with the largest total lag (the coordinator ranks before it evaluates). */
  lagSummaries(withPartitions: boolean, limit: number): GroupLagSummary[];
  /** The consumer groups this node coordinates, at most `limit` (most members pending revocation first). */
  consumerGroupStats?(limit: number): ConsumerGroupStat[];
  readonly cluster: ClusterStatus;
}

export interface OperatorMetricsOptions {
  /** METRICS_MAX_GROUPS: the groups with the largest total lag are exported, at most this many. */
  maxGroups: number;
  /** METRICS_PARTITION_LAG: also one series per group partition. */
  partitionLag: boolean;
}

/**
 * Lag and partition-health gauges (docs/lag.md), computed when Prometheus scrapes (prom-client
 * `collect`), never on the commit path. Lag is exported for the groups this node coordinates, so the
 * cluster's series are the union over nodes. Partition health follows Kafka's split: a node reports
 * under-replicated partitions and ISR sizes for the partitions it leads, and the controller alone
 * reports offline partitions, so summing over nodes counts each partition once.
 */
export class OperatorMetrics {
  /** The groups of the scrape in progress: evaluated once by `refresh`, read by the four lag gauges. */
  private groups: GroupLagSummary[] = [];
  /** The consumer groups of the scrape in progress, read by the consumer group gauges. */
  private consumerGroups: ConsumerGroupStat[] = [];

  constructor(
    registry: Registry,
    private readonly source: OperatorMetricsSource,
    private readonly options: OperatorMetricsOptions,
  ) {
    const exported = (): GroupLagSummary[] => this.groups;

    new Gauge({
      name: 'cohort_group_lag',
      help: 'Summed lag of the group on the topic, against reported end offsets (groups this node coordinates, largest lags first up to METRICS_MAX_GROUPS).',
      labelNames: ['group', 'topic'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const group of exported())
          for (const [topic, lag] of group.topicLag) this.set({ group: group.groupId, topic }, lag);
      },
    });
    new Gauge({
      name: 'cohort_group_max_lag',
      help: 'The largest partition lag of the group.',
      labelNames: ['group'] as const,
      registers: [registry],
      collect() {
        this.reset();
        // A group none of whose lags is known has no series: absent, not a zero that reads as caught up.
        for (const group of exported()) if (group.maxLag !== null) this.set({ group: group.groupId }, group.maxLag);
      },
    });
    new Gauge({
      name: 'cohort_group_time_lag_seconds',
      help: 'Time lag of the group on the topic: how long ago its committed offset was the log end, the largest of its partitions, from the end-offset time index (docs/lag.md).',
      labelNames: ['group', 'topic'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const group of exported())
          for (const [topic, ms] of group.topicTimeLagMs) this.set({ group: group.groupId, topic }, ms / 1000);
      },
    });
    new Gauge({
      name: 'cohort_group_lag_status',
      help: "Burrow's evaluation of the group (docs/lag.md): 1 for its status, 0 for the others.",
      labelNames: ['group', 'status'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const group of exported())
          for (const status of LAG_STATUSES)
            this.set({ group: group.groupId, status }, status === group.status ? 1 : 0);
      },
    });
    if (options.partitionLag) {
      new Gauge({
        name: 'cohort_group_partition_lag',
        help: 'Lag of each group partition (METRICS_PARTITION_LAG=true).',
        labelNames: ['group', 'topic', 'partition'] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const group of exported()) {
            for (const { topic, partition, lag } of group.partitions ?? [])
              this.set({ group: group.groupId, topic, partition: String(partition) }, lag);
          }
        },
      });
      new Gauge({
        name: 'cohort_group_partition_time_lag_seconds',
        help: 'Time lag of each group partition (METRICS_PARTITION_LAG=true), docs/lag.md.',
        labelNames: ['group', 'topic', 'partition'] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const group of exported()) {
            for (const { topic, partition, timeLagMs } of group.partitions ?? [])
              if (timeLagMs !== null)
                this.set({ group: group.groupId, topic, partition: String(partition) }, timeLagMs / 1000);
          }
        },
      });
    }

    const consumers = (): ConsumerGroupStat[] => this.consumerGroups;
    const perConsumerGroup = (name: string, help: string, value: (g: ConsumerGroupStat) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['group'] as const,
        registers: [registry],
        collect() {
          this.reset();
          for (const group of consumers()) this.set({ group: group.groupId }, value(group));
        },
      });
    perConsumerGroup(
      'cohort_consumer_group_epoch',
      'Group epoch of each consumer group (KIP-848) this node coordinates, up to METRICS_MAX_GROUPS (most members pending revocation first).',
      (g) => g.groupEpoch,
    );
    perConsumerGroup(
      'cohort_consumer_group_assignment_epoch',
      'The group epoch the target assignment of each consumer group was computed at; below cohort_consumer_group_epoch while the group is Assigning.',
      (g) => g.assignmentEpoch,
    );
    perConsumerGroup(
      'cohort_consumer_group_members_pending_revocation',
      'Members of each consumer group that still hold partitions they must give up before others can have them.',
      (g) => g.membersPendingRevocation,
    );

    const cluster = source.cluster;
    const led = () => cluster.partitions().filter((p) => p.leader === cluster.nodeId);
    new Gauge({
      name: 'cohort_partition_under_replicated',
      help: '__consumer_offsets partitions led by this node whose ISR is smaller than their replica set.',
      registers: [registry],
      collect() {
        this.set(led().filter((p) => p.isr.length < p.replicas.length).length);
      },
    });
    new Gauge({
      name: 'cohort_partition_offline',
      help: '__consumer_offsets partitions without a live leader (reported by the controller; 0 on other nodes).',
      registers: [registry],
      collect() {
        if (cluster.controllerId() !== cluster.nodeId) return void this.set(0);
        const alive = new Set(
          cluster
            .nodes()
            .filter((n) => n.alive)
            .map((n) => n.nodeId),
        );
        this.set(cluster.partitions().filter((p) => p.leader === null || !alive.has(p.leader)).length);
      },
    });
    new Gauge({
      name: 'cohort_partition_isr_size',
      help: 'In-sync replicas of each __consumer_offsets partition led by this node.',
      labelNames: ['partition'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const p of led()) this.set({ partition: String(p.partition) }, p.isr.length);
      },
    });
  }

  /** Evaluates every group's lag for the scrape that follows (call it before `registry.metrics()`). */
  refresh(): void {
    this.consumerGroups = this.source.consumerGroupStats?.(this.options.maxGroups) ?? [];
    this.groups = topByLag(
      this.source.lagSummaries(this.options.partitionLag, this.options.maxGroups),
      this.options.maxGroups,
    );
  }
}

/** The `max` groups with the largest total lag (ties by id), so a scrape's label sets stay bounded. */
export function topByLag(groups: GroupLagSummary[], max: number): GroupLagSummary[] {
  if (groups.length <= max) return groups;
  return [...groups]
    .sort(
      (a, b) => (b.totalLag ?? 0) - (a.totalLag ?? 0) || (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0),
    )
    .slice(0, max);
}
