import { useState } from 'preact/hooks';
import { api } from '../api/api';
import type { ClusterInfo, PartitionInfo } from '../api/rest-types';
import { ErrorBanner } from '../components/error-banner';
import { formatAgo, formatNumber } from '../format';
import { usePolling } from '../hooks/use-polling';

/** Five seconds: an ISR shrinks after REPLICA_LAG_TIME_MAX_MS (10 s by default), so this shows it in time. */
export const CLUSTER_POLL_MS = 5000;

/** A partition with fewer in-sync replicas than replicas; offline when it has no leader. */
export function partitionHealth(p: PartitionInfo): 'offline' | 'under-replicated' | 'ok' {
  if (p.leader === null) return 'offline';
  return p.isr.length < p.replicas.length ? 'under-replicated' : 'ok';
}

async function loadCluster(): Promise<{ cluster: ClusterInfo; partitions: PartitionInfo[] }> {
  const [cluster, partitions] = await Promise.all([
    api.get<ClusterInfo>('/v1/cluster'),
    api.get<PartitionInfo[]>('/v1/cluster/partitions'),
  ]);
  return { cluster, partitions };
}

/** Nodes and the `__consumer_offsets` partitions: leader, epoch, replicas, ISR, high watermark. */
export function ClusterPage() {
  const polled = usePolling(loadCluster, CLUSTER_POLL_MS, []);
  const [onlyUnhealthy, setOnlyUnhealthy] = useState(false);
  if (!polled.data)
    return <section>{polled.error ? <ErrorBanner error={polled.error} /> : <p class="muted">Loading…</p>}</section>;
  const { cluster, partitions } = polled.data;
  const alive = cluster.nodes.filter((n) => n.alive).length;
  const under = partitions.filter((p) => partitionHealth(p) === 'under-replicated').length;
  const offline = partitions.filter((p) => partitionHealth(p) === 'offline').length;
  const shown = [...partitions]
    .sort((a, b) => a.partition - b.partition)
    .filter((p) => !onlyUnhealthy || partitionHealth(p) !== 'ok');
  return (
    <section>
      <div class="page-head">
        <h1>
          Cluster <span class="mono muted">{cluster.clusterId}</span>
        </h1>
        <span class="muted updated">
          {polled.updatedAt ? `updated ${formatAgo(polled.updatedAt, Date.now())}` : ''}
        </span>
      </div>
      <ErrorBanner error={polled.error} />
      <div class="tiles">
        <div class={alive < cluster.nodes.length ? 'tile warn' : 'tile'}>
          <strong>
            {alive} / {cluster.nodes.length}
          </strong>
          nodes alive
        </div>
        <div class={cluster.controllerId === null ? 'tile warn' : 'tile'}>
          <strong class="controller">{cluster.controllerId === null ? 'none' : `node ${cluster.controllerId}`}</strong>
          {cluster.controllerId === null ? 'controller: being elected' : 'is the controller'}
        </div>
        <div class="tile">
          <strong>{partitions.length}</strong>offsets partitions
        </div>
        <div class={under > 0 ? 'tile warn' : 'tile'}>
          <strong class="under-replicated-count">{under}</strong>under-replicated
        </div>
        <div class={offline > 0 ? 'tile bad' : 'tile'}>
          <strong>{offline}</strong>offline
        </div>
      </div>
      <h2>Nodes</h2>
      <table class="nodes">
        <thead>
          <tr>
            <th>Node</th>
            <th>URL</th>
            <th>Status</th>
            <th class="num">Leads</th>
          </tr>
        </thead>
        <tbody>
          {cluster.nodes.map((n) => (
            <tr key={n.nodeId} data-node={n.nodeId} class={n.alive ? '' : 'bad'}>
              <td>
                {n.nodeId}
                {n.nodeId === cluster.controllerId && <span class="tag">controller</span>}
              </td>
              <td class="mono">{n.url}</td>
              <td>{n.alive ? 'alive' : 'not registered'}</td>
              <td class="num">{partitions.filter((p) => p.leader === n.nodeId).length}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="page-head">
        <h2>Partitions of __consumer_offsets</h2>
        <label class="inline">
          <input type="checkbox" checked={onlyUnhealthy} onChange={(e) => setOnlyUnhealthy(e.currentTarget.checked)} />
          only under-replicated or offline
        </label>
      </div>
      <table class="partitions">
        <thead>
          <tr>
            <th class="num">Partition</th>
            <th class="num">Leader</th>
            <th class="num">Epoch</th>
            <th>Replicas</th>
            <th>ISR</th>
            <th class="num">High watermark</th>
            <th class="num">Log end</th>
            <th>Health</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((p) => {
            const health = partitionHealth(p);
            return (
              <tr
                key={p.partition}
                data-partition={p.partition}
                class={health === 'ok' ? '' : health === 'offline' ? 'bad' : 'warn'}
              >
                <td class="num">{p.partition}</td>
                <td class="num">{p.leader ?? 'none'}</td>
                <td class="num">{p.leaderEpoch}</td>
                <td class="mono">{p.replicas.join(', ')}</td>
                <td class="mono">{p.isr.join(', ')}</td>
                <td class="num">{formatNumber(p.highWatermark)}</td>
                <td class="num">{formatNumber(p.logEndOffset)}</td>
                <td>
                  {health === 'ok' ? (
                    <span class="muted">in sync</span>
                  ) : (
                    <span class={`badge ${health === 'offline' ? 'bad' : 'warn'}`}>{health}</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
