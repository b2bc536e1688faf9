import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { type CoordinatorMetrics, EPOCH_BUMP_REASONS, type GroupSummaryView } from '@cohort/coordinator';
import { CONSUMER_GROUP_STATE_NAMES, errorName, GROUP_STATE_NAMES } from '@cohort/protocol';
import { EdgeLimitMetrics } from './edge-limit-metrics';
import { FoldedHistogramSeries } from './folded-histogram';

/** A request series' children (see `requestChildren`). */
interface RequestChildren {
  count: { inc(value: number): void };
  answered: number;
  seconds: { observe(value: number): void };
}

/**
 * This node's Prometheus metrics (`GET /metrics`). One registry per app instance, not prom-client's
 * global one, so several nodes in one process (tests, benchmarks) do not collide. Also the coordinator's
 * CoordinatorMetrics port. Labels stay bounded: API and error names, group states — never group or
 * member ids.
 */
@Injectable()
export class CohortMetrics implements CoordinatorMetrics {
  readonly registry = new Registry();
  /** What the limits at the socket and REST edge refused or closed (EdgeLimitMetrics). */
  readonly edge = new EdgeLimitMetrics(this.registry);

  private readonly requests = new Counter({
    name: 'cohort_requests_total',
    help: 'Requests answered, by transport, API and Kafka error name (NONE on success).',
    labelNames: ['transport', 'api', 'error'] as const,
    registers: [this.registry],
    // Requests are counted in plain numbers as they are answered and added here, when the counter is read.
    collect: () => this.addAnsweredCounts(),
  });
  private readonly requestSeconds = new Histogram({
    name: 'cohort_request_duration_seconds',
    help: 'Time from request to answer; JoinGroup and SyncGroup include the wait for the rebalance phase.',
    labelNames: ['transport', 'api'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
    // Observed in plain numbers per series as requests are answered, added here when it is read.
    collect: () => {
      for (const series of this.durationSeries.values()) series.fold();
    },
  });
  /** The request-duration series by transport and API, in the order they were first observed. */
  private readonly durationSeries = new Map<string, FoldedHistogramSeries>();
  private readonly connections = new Gauge({
    name: 'cohort_socket_connections',
    help: 'Open socket.io connections.',
    registers: [this.registry],
  });
  private readonly groups = new Gauge({
    name: 'cohort_groups',
    help: 'Classic groups coordinated by this node, by state.',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  private readonly consumerGroups = new Gauge({
    name: 'cohort_consumer_groups',
    help: "Consumer groups (KIP-848) coordinated by this node, by state (Kafka's consumer-group-count).",
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  private readonly members = new Gauge({
    name: 'cohort_group_members',
    help: 'Members of the groups coordinated by this node, classic and consumer groups.',
    registers: [this.registry],
  });
  private readonly epochBumps = new Counter({
    name: 'cohort_consumer_group_epoch_bumps_total',
    help: "Consumer group epoch bumps (the consumer protocol's rebalances), by reason: member-joined, member-left, member-fenced, subscription-changed, topic-metadata-changed.",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly convergeSeconds = new Histogram({
    name: 'cohort_consumer_group_converge_duration_seconds',
    help: 'From a consumer group epoch bump until every member held its target at that epoch (or the group was Empty), by the reason of the bump.',
    labelNames: ['reason'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  private readonly rebalances = new Counter({
    name: 'cohort_rebalances_total',
    help: 'Rebalances started.',
    registers: [this.registry],
  });
  private readonly rebalanceSeconds = new Histogram({
    name: 'cohort_rebalance_duration_seconds',
    help: 'From the start of a rebalance to Stable (or Empty).',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  private readonly serverAssignments = new Counter({
    name: 'cohort_server_assignments_total',
    help: 'Server-side assignments computed, by assignor and outcome (failed: it threw or returned an invalid assignment).',
    labelNames: ['assignor', 'outcome'],
    registers: [this.registry],
  });
  private readonly serverAssignmentSeconds = new Histogram({
    name: 'cohort_server_assignment_duration_seconds',
    help: 'Time a server-side assignor took, its result checks included.',
    labelNames: ['assignor'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  private readonly offsetCommits = new Counter({
    name: 'cohort_offset_commits_total',
    help: 'Offsets committed (their records passed the high watermark).',
    registers: [this.registry],
  });
  private readonly shareLeased = new Counter({
    name: 'cohort_share_offsets_leased_total',
    help: 'Share groups: offsets leased (their lease record committed), each delivery counted.',
    registers: [this.registry],
  });
  private readonly shareAcknowledged = new Counter({
    name: 'cohort_share_offsets_acknowledged_total',
    help: 'Share groups: offsets acknowledged (their record committed), by type: gap, accept, release, reject.',
    labelNames: ['type'],
    registers: [this.registry],
    // Counted in plain numbers per type as acknowledgements commit, and added here when the counter is read.
    collect: () => this.addAcknowledgedOffsets(),
  });
  /** Offsets acknowledged per type not yet added to `shareAcknowledged` (prom-client hashes the labels on every `inc`). */
  private readonly acknowledgedOffsets = new Map<string, number>();
  private readonly offsetsExpired = new Counter({
    name: 'cohort_offsets_expired_total',
    help: 'Offsets removed by retention (KIP-211).',
    registers: [this.registry],
  });
  private readonly membersExpired = new Counter({
    name: 'cohort_members_expired_total',
    help: 'Members removed because their session timed out.',
    registers: [this.registry],
  });
  private readonly memberQuotaRefusals = new Counter({
    name: 'cohort_member_quota_refusals_total',
    help: 'JoinGroups refused with THROTTLING_QUOTA_EXCEEDED because their principal held MAX_MEMBERS_PER_PRINCIPAL members or MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL bytes of protocols, by limit.',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });
  private readonly pendingMembersExpired = new Counter({
    name: 'cohort_pending_members_expired_total',
    help: 'KIP-394 pending member ids dropped before their member joined with them, by reason (session-timeout, connection-closed).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly writeFailures = new Counter({
    name: 'cohort_log_write_failures_total',
    help: 'Writes to __consumer_offsets that failed, by error name.',
    labelNames: ['error'] as const,
    registers: [this.registry],
  });
  private readonly logFlushSeconds = new Histogram({
    name: 'cohort_log_flush_duration_seconds',
    help: 'Flushes of the embedded log journal under LOG_FLUSH_POLICY=always: one write and one fdatasync that make the appends of every partition at that moment durable.',
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  private readonly logFlushBytes = new Counter({
    name: 'cohort_log_flush_bytes_total',
    help: 'Bytes made durable by the flushes of the embedded log journal.',
    registers: [this.registry],
  });
  private readonly storageFaults = new Counter({
    name: 'cohort_storage_faults_total',
    help: 'Times the storage of DATA_DIR failed a write (no space, I/O error), after which writes were refused with KAFKA_STORAGE_ERROR until it healed.',
    registers: [this.registry],
  });
  private readonly storageFault = new Gauge({
    name: 'cohort_storage_fault',
    help: '1 while writes are refused because the storage of DATA_DIR failed (reads are still served), else 0.',
    registers: [this.registry],
  });
  private readonly damagedPartitions = new Gauge({
    name: 'cohort_log_damaged_partitions',
    help: 'Partitions not served because their log is damaged where written records are (see LOG_RECOVERY_TRUNCATE_ON_CORRUPTION).',
    registers: [this.registry],
  });
  private readonly offsetsCut = new Counter({
    name: 'cohort_log_recovery_offsets_cut_total',
    help: 'Written offsets lost because a damaged log was cut on start, as LOG_RECOVERY_TRUNCATE_ON_CORRUPTION=true allows.',
    registers: [this.registry],
  });
  private readonly partitionLoadSeconds = new Histogram({
    name: 'cohort_partition_load_duration_seconds',
    help: 'Time to replay a __consumer_offsets partition on becoming its leader.',
    buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    for (const reason of EPOCH_BUMP_REASONS) this.epochBumps.inc({ reason }, 0);
  }

  /**
   * The label-bound children of the request metrics, looked up once per label set (transport × API ×
   * error code, as many as the series) instead of hashing the labels on every request; neither metric is
   * ever reset. `answered` counts the requests not yet added to `count`: prom-client hashes and checks
   * the labels on every `inc`, so the counter gets them in one `inc` per series when it is read. Nested
   * maps, not one keyed by a string joined per request: that string was built, flattened and hashed on
   * every answer, the longer the API's name the dearer (ConsumerGroupHeartbeat paid twice Heartbeat's).
   */
  private readonly requestChildren = new Map<string, Map<string, Map<number, RequestChildren>>>();

  requestAnswered(transport: 'socket.io' | 'http', api: string, errorCode: number, seconds: number): void {
    let apis = this.requestChildren.get(transport);
    if (apis === undefined) this.requestChildren.set(transport, (apis = new Map()));
    let codes = apis.get(api);
    if (codes === undefined) apis.set(api, (codes = new Map()));
    let children = codes.get(errorCode);
    if (children === undefined) {
      const error = errorName(errorCode);
      // Two codes of one name (unknown codes) share prom-client's children: each adds its own count.
      children = {
        count: this.requests.labels({ transport, api, error }),
        answered: 0,
        seconds: this.durationSeriesOf(transport, api),
      };
      codes.set(errorCode, children);
    }
    children.answered++;
    children.seconds.observe(seconds);
  }

  private durationSeriesOf(transport: string, api: string): FoldedHistogramSeries {
    const key = `${transport} ${api}`;
    let series = this.durationSeries.get(key);
    if (series === undefined)
      this.durationSeries.set(key, (series = new FoldedHistogramSeries(this.requestSeconds, { transport, api })));
    return series;
  }

  /** The requests answered since the counter was last read, added to it (its `collect`, run on every read). */
  private addAnsweredCounts(): void {
    for (const apis of this.requestChildren.values())
      for (const codes of apis.values())
        for (const children of codes.values()) {
          if (children.answered === 0) continue;
          children.count.inc(children.answered);
          children.answered = 0;
        }
  }

  connectionOpened(): void {
    this.connections.inc();
  }

  connectionClosed(): void {
    this.connections.dec();
  }

  /** Refreshed on each scrape from the coordinator's own view, so the gauges cannot drift. */
  setGroups(summaries: GroupSummaryView[]): void {
    const classic = summaries.filter((group) => group.type === 'classic');
    const consumer = summaries.filter((group) => group.type === 'consumer');
    for (const state of GROUP_STATE_NAMES)
      this.groups.set({ state }, classic.filter((group) => group.state === state).length);
    for (const state of CONSUMER_GROUP_STATE_NAMES)
      if (state !== 'Dead')
        this.consumerGroups.set({ state }, consumer.filter((group) => group.state === state).length);
    this.members.set(summaries.reduce((sum, group) => sum + group.members, 0));
  }

  onRebalanceStarted(): void {
    this.rebalances.inc();
  }

  onRebalanceCompleted(_groupId: string, durationMs: number): void {
    this.rebalanceSeconds.observe(durationMs / 1000);
  }

  onConsumerEpochBump(_groupId: string, reason: string): void {
    this.epochBumps.inc({ reason });
  }

  onConsumerGroupConverged(_groupId: string, reason: string, durationMs: number): void {
    this.convergeSeconds.observe({ reason }, durationMs / 1000);
  }

  onServerAssignment(assignor: string, outcome: 'ok' | 'failed', durationMs: number): void {
    this.serverAssignments.inc({ assignor, outcome });
    this.serverAssignmentSeconds.observe({ assignor }, durationMs / 1000);
  }

  onOffsetCommit(count: number): void {
    this.offsetCommits.inc(count);
  }

  onShareOffsetsLeased(count: number): void {
    this.shareLeased.inc(count);
  }

  onShareOffsetsAcknowledged(type: 'gap' | 'accept' | 'release' | 'reject', count: number): void {
    this.acknowledgedOffsets.set(type, (this.acknowledgedOffsets.get(type) ?? 0) + count);
  }

  /** The offsets acknowledged since the counter was last read, added to it (its `collect`). */
  private addAcknowledgedOffsets(): void {
    for (const [type, count] of this.acknowledgedOffsets) if (count > 0) this.shareAcknowledged.inc({ type }, count);
    this.acknowledgedOffsets.clear();
  }

  onOffsetsExpired(count: number): void {
    this.offsetsExpired.inc(count);
  }

  onMemberExpired(): void {
    this.membersExpired.inc();
  }

  onMemberQuotaRefused(limit: 'members' | 'metadata-bytes'): void {
    this.memberQuotaRefusals.inc({ limit });
  }

  onPendingMemberExpired(reason: 'session-timeout' | 'connection-closed'): void {
    this.pendingMembersExpired.inc({ reason });
  }

  onWriteFailed(_partition: number, errorCode: number): void {
    this.writeFailures.inc({ error: errorName(errorCode) });
  }

  onLogFlush(durationMs: number, bytes: number): void {
    this.logFlushSeconds.observe(durationMs / 1000);
    this.logFlushBytes.inc(bytes);
  }

  onStorageFault(): void {
    this.storageFaults.inc();
    this.storageFault.set(1);
  }

  onStorageHealed(): void {
    this.storageFault.set(0);
  }

  onLogCut(offsets: number): void {
    this.offsetsCut.inc(offsets);
  }

  setDamagedPartitions(count: number): void {
    this.damagedPartitions.set(count);
  }

  onPartitionLoaded(_partition: number, durationMs: number): void {
    this.partitionLoadSeconds.observe(durationMs / 1000);
  }
}
