import type { TopicPartitions as TopicPartitionList } from '@cohort/protocol';
import type { LogRecord } from '@cohort/replication';
import { ManualClock } from '@cohort/replication';
import type {
  ConsumerAssignorGroupSpec,
  ConsumerGroupAssignorPort,
} from '@cohort/coordinator/ports/consumer-assignor.port';
import type { ConsumerGroup } from '@cohort/coordinator/consumer/consumer-group';
import { consumerGroupConfig, type ConsumerGroupConfig } from '@cohort/coordinator/consumer/consumer-group-config';
import { ConsumerGroupManager } from '@cohort/coordinator/consumer/consumer-group-manager';
import { HeartbeatBatch } from '@cohort/coordinator/consumer/heartbeat-batch';
import type { BatchOutcome, HeartbeatBatchHooks } from '@cohort/coordinator/consumer/heartbeat-batch.types';
import type { ConsumerGroupMember } from '@cohort/coordinator/consumer/consumer-group-member';
import { consumerGroupRecords } from '@cohort/coordinator/consumer/consumer-group-records';
import { MapConsumerGroupStore, replayConsumerRecord } from '@cohort/coordinator/consumer/consumer-group-replay';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
} from '@cohort/coordinator/consumer/consumer-heartbeat.types';
import { decodeConsumerRecordKey } from '@cohort/coordinator/consumer/consumer-records';
import { groupSubscription, metadataHash } from '@cohort/coordinator/consumer/subscription-metadata';
import type { TopicPartitions } from '@cohort/coordinator/consumer/topic-partitions';
import type { CoordinatorResult } from '@cohort/coordinator/runtime/coordinator-result';
import { OperationEffects } from '@cohort/coordinator/runtime/operation-effects';
import { ShardTimers } from '@cohort/coordinator/timers/shard-timers';
import type { TopicAccessPort } from '@cohort/coordinator/ports/topic-access.port';
import type { CoordinatorMetrics } from '@cohort/coordinator/ports/coordinator-metrics.port';

export const DEFAULT_CLIENT_ID = 'client';
export const DEFAULT_CLIENT_HOST = '/127.0.0.1';

/**
 * Kafka's `MockPartitionAssignor`: answers the assignment a test prepared and records what it was asked.
 */
export class MockConsumerAssignor implements ConsumerGroupAssignorPort {
  readonly calls: ConsumerAssignorGroupSpec[] = [];
  private prepared: Record<string, TopicPartitionList[]> = {};

  constructor(readonly name: string) {}

  prepareGroupAssignment(byMember: Record<string, Record<string, number[]>>): void {
    this.prepared = {};
    for (const [memberId, byTopic] of Object.entries(byMember))
      this.prepared[memberId] = Object.entries(byTopic).map(([topic, partitions]) => ({ topic, partitions }));
  }

  assign(group: ConsumerAssignorGroupSpec): Record<string, TopicPartitionList[]> {
    this.calls.push(group);
    return this.prepared;
  }
}

export interface ConsumerGroupHarnessOptions {
  assignors: ConsumerGroupAssignorPort[];
  topics?: Record<string, number>;
  config?: Partial<ConsumerGroupConfig>;
  /** The epoch bumps each group keeps (the coordinator config's `rebalanceHistorySize`). */
  historySize?: number;
  metrics?: CoordinatorMetrics;
  /** DESCRIBE TOPIC by ACLs: regex members get only what their principal may describe. */
  topicAccess?: TopicAccessPort;
}

/** What one heartbeat returned: the response and the records it wrote, in order. */
export interface HeartbeatResult {
  response: ConsumerGroupHeartbeatResponse;
  records: LogRecord[];
}

/**
 * Kafka's `GroupMetadataManagerTestContext` for consumer groups over virtual time: a
 * `ConsumerGroupManager` with the shard's effects and timers, whose writes commit at once (or fail on
 * demand) into a log that can be replayed, and whose timers fire as `advance` moves the clock. Writes
 * that a timer starts (fencing) are collected in `timerWrites`.
 */
export class ConsumerGroupHarness {
  readonly clock = new ManualClock();
  readonly effects = new OperationEffects();
  readonly groups: MapConsumerGroupStore;
  readonly timers: ShardTimers;
  readonly topics: Record<string, number>;
  readonly config: ConsumerGroupConfig;
  readonly manager: ConsumerGroupManager;
  /** Every committed record, in log order. */
  readonly log: LogRecord[] = [];
  /** The records of each write a timer started, in order. */
  readonly timerWrites: LogRecord[][] = [];
  /** When set, the next write fails instead of committing. */
  failNextWrite = false;

  constructor(options: ConsumerGroupHarnessOptions) {
    this.topics = { ...(options.topics ?? {}) };
    this.historySize = options.historySize;
    this.groups = new MapConsumerGroupStore(options.historySize);
    this.config = consumerGroupConfig(options.config);
    this.timers = new ShardTimers(this.clock, (fire) => this.step(fire));
    this.manager = new ConsumerGroupManager({
      groups: this.groups,
      effects: this.effects,
      clock: this.clock,
      config: this.config,
      assignors: options.assignors,
      partitionsOf: (topic) => this.topics[topic],
      topicNames: () => Object.keys(this.topics),
      topicCount: () => Object.keys(this.topics).length,
      metrics: options.metrics,
      topicAccess: options.topicAccess,
    });
  }

  private readonly historySize: number | undefined;

  /** A group as Kafka's `ConsumerGroupBuilder` makes one: its records replayed, its metadata hash current. */
  withGroup(
    groupId: string,
    groupEpoch: number,
    members: ConsumerGroupMember[],
    targets: Record<string, TopicPartitions>,
    assignmentEpoch: number,
  ): ConsumerGroup {
    const store = new MapConsumerGroupStore();
    const group = store.create(groupId);
    for (const member of members) group.updateMember(member);
    for (const [memberId, target] of Object.entries(targets)) group.updateTargetAssignment(memberId, target);
    group.setGroupEpoch(groupEpoch);
    group.setTargetAssignmentEpoch(assignmentEpoch);
    const { metadata } = groupSubscription(
      group.subscribedTopicNames.keys(),
      group.subscribedRegexes.keys(),
      () => Object.keys(this.topics),
      (t) => this.topics[t],
    );
    group.metadataHash = metadataHash(metadata);
    this.replay(consumerGroupRecords(group, this.clock.now()));
    return this.groups.get(groupId)!;
  }

  /** Records applied as a load would, and appended to the log. */
  replay(records: LogRecord[]): void {
    for (const record of records) {
      replayConsumerRecord(this.groups, decodeConsumerRecordKey(record.key)!, record.value);
      this.log.push(record);
    }
  }

  /** One heartbeat; `principal` is the caller as the ACLs know it (with `topicAccess`). */
  heartbeat(request: ConsumerGroupHeartbeatRequest, principal?: string): HeartbeatResult {
    const aclCaller = principal === undefined ? undefined : { principal, host: DEFAULT_CLIENT_HOST };
    const result = this.manager.heartbeat(request, {
      clientId: DEFAULT_CLIENT_ID,
      clientHost: DEFAULT_CLIENT_HOST,
      aclCaller,
    });
    const records = result.records;
    this.run(result);
    return { response: result.response!, records };
  }

  /**
   * The heartbeats of one turn run together, as the shard runs them (`HeartbeatBatch`): what they
   * wrote commits in order, and each answer is returned with the members the batch tells to heartbeat now.
   * `principals[i]` is the caller of `requests[i]` as the ACLs know it (with `topicAccess`).
   */
  heartbeatBatch(
    requests: ConsumerGroupHeartbeatRequest[],
    principals: (string | undefined)[] = [],
    hooks: Partial<HeartbeatBatchHooks> = {},
  ): BatchOutcome {
    return this.heartbeatBatchInSteps(requests, Infinity, { principals, hooks });
  }

  /**
   * `heartbeatBatch` run as the shard runs a big one, over several turns: `budget` parts per step
   * (`HeartbeatBatch.step`), what each step wrote committed before the next, and `between` run after
   * each step but the last (what other requests or timers do meanwhile). `steps` says how many it took.
   */
  heartbeatBatchInSteps(
    requests: ConsumerGroupHeartbeatRequest[],
    budget: number,
    {
      principals = [],
      between,
      hooks = {},
    }: {
      principals?: (string | undefined)[];
      between?: (step: number, batch: HeartbeatBatch) => void;
      hooks?: Partial<HeartbeatBatchHooks>;
    } = {},
  ): BatchOutcome & { steps: number } {
    const contextOf = (principal: string | undefined) => ({
      clientId: DEFAULT_CLIENT_ID,
      clientHost: DEFAULT_CLIENT_HOST,
      aclCaller: principal === undefined ? undefined : { principal, host: DEFAULT_CLIENT_HOST },
    });
    const batch = new HeartbeatBatch(
      this.manager,
      requests.map((request, index) => ({ request, context: contextOf(principals[index]) })),
      this.clock.now(),
      {
        alone: () => null,
        onBug: (error) => {
          throw error;
        },
        ...hooks,
      },
    );
    const runs: BatchOutcome['runs'] = [];
    let steps = 0;
    let done = false;
    while (!done) {
      done = batch.step(budget);
      steps++;
      for (const run of batch.runs.splice(0)) {
        runs.push(run);
        this.run(run);
      }
      if (!done) between?.(steps, batch);
    }
    return { answers: batch.answers.byIndex, runs, tell: batch.tell, steps };
  }

  /** Moves virtual time; timers that fall due fire in order. */
  advance(ms: number): void {
    this.clock.advance(ms);
  }

  hasSessionTimeout(groupId: string, memberId: string): boolean {
    return this.timers.has(`consumer-session\u0000${groupId}\u0000${memberId}`);
  }

  hasRebalanceTimeout(groupId: string, memberId: string): boolean {
    return this.timers.has(`consumer-rebalance\u0000${groupId}\u0000${memberId}`);
  }

  /** The shard's groups rebuilt from the log alone, as a new leader would load them. */
  reloaded(): MapConsumerGroupStore {
    const store = new MapConsumerGroupStore(this.historySize);
    // Copies of the bytes, as a load reads them: the records' own buffers are known to the process that built them.
    for (const { key, value } of this.log)
      replayConsumerRecord(store, decodeConsumerRecordKey(Buffer.from(key))!, value && Buffer.from(value));
    return store;
  }

  /** Runs a step that is not a request (a timer firing, a load) and applies what it recorded, as the shard does. */
  step(fire: () => void): void {
    fire();
    const effects = this.effects.take();
    this.timers.apply(effects.timers);
    for (const write of effects.followUps) {
      this.timerWrites.push(write.records);
      this.commit(write);
    }
  }

  private run<T>(result: CoordinatorResult<T>): void {
    this.timers.apply(result.timers ?? []);
    for (const write of result.followUps ?? []) this.commit(write);
    this.commit(result);
  }

  private commit<T>(result: CoordinatorResult<T>): void {
    if (result.records.length === 0) return;
    if (this.failNextWrite) {
      this.failNextWrite = false;
      result.appendFuture?.({ ok: false, storeError: 6, message: 'not the leader' });
      return;
    }
    const base = this.log.length;
    this.log.push(...result.records);
    result.appendFuture?.({ ok: true, baseOffset: base, lastOffset: this.log.length - 1 });
  }
}
