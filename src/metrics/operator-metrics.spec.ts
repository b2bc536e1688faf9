import { Registry } from 'prom-client';
import type { GroupLagSummary } from '@cohort/coordinator';
import type { ClusterStatus, PartitionView } from '../node/cluster-status';
import { OperatorMetrics } from './operator-metrics';

function summary(i: number): GroupLagSummary {
  const lag = (i * 7919) % 10_007;
  return {
    groupId: `g-${String(i).padStart(5, '0')}`,
    status: i % 3 === 0 ? 'WARN' : 'OK',
    totalLag: lag * 2,
    maxLag: lag,
    topicLag: new Map([
      ['orders', lag],
      ['audit', lag],
    ]),
    topicTimeLagMs: new Map([
      ['orders', lag * 10],
      ['audit', lag * 10],
    ]),
    partitions: [
      { topic: 'orders', partition: 0, lag, timeLagMs: lag * 10 },
      { topic: 'audit', partition: 0, lag, timeLagMs: lag * 10 },
    ],
  };
}

function clusterOf(partitions: Partial<PartitionView>[], nodeId = 1, controllerId = 1): ClusterStatus {
  return {
    clusterId: 'c',
    nodeId,
    controllerId: () => controllerId,
    nodes: () => [1, 2, 3].map((id) => ({ nodeId: id, url: `http://n${id}`, alive: id !== 3 })),
    partitions: () =>
      partitions.map(
        (p, partition) =>
          ({
            partition,
            leaderEpoch: 1,
            highWatermark: 0,
            logEndOffset: 0,
            replicaStates: [],
            replicas: [1, 2, 3],
            ...p,
          }) as PartitionView,
      ),
    leaderOf: () => null,
  };
}

async function series(
  registry: Registry,
  name: string,
): Promise<{ labels: Record<string, string | number>; value: number }[]> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []) as { labels: Record<string, string | number>; value: number }[];
}

describe('OperatorMetrics', () => {
  it('keeps label sets bounded with 10,000 groups: only the METRICS_MAX_GROUPS largest lags are exported', async () => {
    const registry = new Registry();
    const groups = Array.from({ length: 10_000 }, (_, i) => summary(i));
    new OperatorMetrics(
      registry,
      { lagSummaries: () => groups, cluster: clusterOf([]) },
      { maxGroups: 100, partitionLag: true },
    ).refresh();
    const lag = await series(registry, 'cohort_group_lag');
    const exportedGroups = new Set(lag.map((s) => s.labels.group));
    expect(exportedGroups.size).toBe(100);
    expect(lag).toHaveLength(200);
    const smallestExported = Math.min(...lag.map((s) => s.value));
    const largestLeftOut = Math.max(...groups.filter((g) => !exportedGroups.has(g.groupId)).map((g) => g.maxLag ?? 0));
    expect(smallestExported).toBeGreaterThanOrEqual(largestLeftOut);
    expect(await series(registry, 'cohort_group_max_lag')).toHaveLength(100);
    const statuses = await series(registry, 'cohort_group_lag_status');
    expect(statuses).toHaveLength(100 * 6);
    expect(statuses.filter((s) => s.value === 1)).toHaveLength(100);
    expect(await series(registry, 'cohort_group_partition_lag')).toHaveLength(200);
    expect(await series(registry, 'cohort_group_time_lag_seconds')).toHaveLength(200);
    expect(await series(registry, 'cohort_group_partition_time_lag_seconds')).toHaveLength(200);
  });

  it('exports no lag totals for a group none of whose lags is known, and time lag in seconds', async () => {
    const registry = new Registry();
    const unknown: GroupLagSummary = {
      groupId: 'unreported',
      status: 'UNKNOWN',
      totalLag: null,
      maxLag: null,
      topicLag: new Map(),
      topicTimeLagMs: new Map(),
      partitions: [],
    };
    new OperatorMetrics(
      registry,
      { lagSummaries: () => [unknown, summary(2)], cluster: clusterOf([]) },
      { maxGroups: 10, partitionLag: true },
    ).refresh();
    expect((await series(registry, 'cohort_group_max_lag')).map((s) => s.labels.group)).toEqual(['g-00002']);
    expect((await series(registry, 'cohort_group_lag')).some((s) => s.labels.group === 'unreported')).toBe(false);
    expect(
      (await series(registry, 'cohort_group_lag_status')).find((s) => s.labels.group === 'unreported' && s.value === 1)
        ?.labels.status,
    ).toBe('UNKNOWN');
    expect(await series(registry, 'cohort_group_time_lag_seconds')).toContainEqual({
      labels: { group: 'g-00002', topic: 'orders' },
      value: (summary(2).maxLag! * 10) / 1000,
    });
  });

  it('exports per-partition lag only when asked for', async () => {
    const registry = new Registry();
    new OperatorMetrics(
      registry,
      { lagSummaries: () => [summary(1)], cluster: clusterOf([]) },
      { maxGroups: 10, partitionLag: false },
    ).refresh();
    expect(await registry.getSingleMetric('cohort_group_partition_lag')).toBeUndefined();
    expect(await series(registry, 'cohort_group_lag')).toEqual([
      { labels: { group: 'g-00001', topic: 'orders' }, value: summary(1).maxLag },
      { labels: { group: 'g-00001', topic: 'audit' }, value: summary(1).maxLag },
    ]);
  });

  it('reports under-replicated partitions and ISR sizes of led partitions, offline ones on the controller only', async () => {
    const partitions: Partial<PartitionView>[] = [
      { leader: 1, isr: [1, 2, 3] },
      { leader: 1, isr: [1] },
      { leader: 2, isr: [2] },
      { leader: null, isr: [] },
      { leader: 3, isr: [3] }, // its leader is not alive
    ];
    const onController = new Registry();
    new OperatorMetrics(
      onController,
      { lagSummaries: () => [], cluster: clusterOf(partitions) },
      { maxGroups: 10, partitionLag: false },
    ).refresh();
    expect((await series(onController, 'cohort_partition_under_replicated'))[0].value).toBe(1);
    expect((await series(onController, 'cohort_partition_offline'))[0].value).toBe(2);
    expect(await series(onController, 'cohort_partition_isr_size')).toEqual([
      { labels: { partition: '0' }, value: 3 },
      { labels: { partition: '1' }, value: 1 },
    ]);
    const elsewhere = new Registry();
    new OperatorMetrics(
      elsewhere,
      { lagSummaries: () => [], cluster: clusterOf(partitions, 2, 1) },
      { maxGroups: 10, partitionLag: false },
    ).refresh();
    expect((await series(elsewhere, 'cohort_partition_offline'))[0].value).toBe(0);
    expect((await series(elsewhere, 'cohort_partition_under_replicated'))[0].value).toBe(1);
  });
});
