import type { ClassicGroup } from '../group/classic-group';
import type { GroupRegistry } from '../group/group-registry';
import type { TopicInfo } from '../ports/topic-registry.port';
import { GroupUnloader } from './group-unloader';
import { JoinPhase } from './join-phase';
import { MemberLiveness } from './member-liveness';
import { Membership } from './membership';
import { SyncPhase } from './sync-phase';
import type { ConnectionIndex } from '../context/connection-index';
import type { ShardEnv } from '../context/shard-env';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { OperationEffects } from '../runtime/operation-effects';

/**
 * The classic group protocol of one shard (the classic half of Kafka's `GroupMetadataManager`): what
 * the JoinGroup, SyncGroup, Heartbeat and LeaveGroup handlers work on. It holds the rebalance parts and
 * wires them to each other through their narrow ports; it knows nothing of the runtime or the timers:
 * its parts record timer operations and phase-completion writes in the step's `OperationEffects`, and
 * `finish` hands them out with the handler's result. A second group type (KIP-848 consumer groups)
 * would be a sibling manager over the same registry, effects and runtime.
 */
export class ClassicGroupManager {
  readonly liveness: MemberLiveness;
  readonly membership: Membership;
  readonly syncs: SyncPhase;
  readonly joins: JoinPhase;
  private readonly unloader: GroupUnloader;

  constructor(
    readonly partition: number,
    readonly groups: GroupRegistry,
    readonly effects: OperationEffects,
    readonly connections: ConnectionIndex,
    readonly env: ShardEnv,
  ) {
    const removal = (): Membership => this.membership;
    const rebalance = (): JoinPhase => this.joins;
    this.liveness = new MemberLiveness({ groups, effects, connections, env, removal });
    this.membership = new Membership({ groups, connections, liveness: this.liveness, env, rebalance });
    this.syncs = new SyncPhase({ groups, effects, liveness: this.liveness, removal, rebalance, env });
    this.joins = new JoinPhase({
      partition,
      groups,
      effects,
      liveness: this.liveness,
      membership: this.membership,
      syncs: this.syncs,
      env,
    });
    this.unloader = new GroupUnloader(partition, groups, env);
  }

  get now(): number {
    return this.env.clock.now();
  }

  /** A handler's result with the timers and writes its step asked for: what the shard runs. */
  finish<T>(result: CoordinatorResult<T>): CoordinatorResult<T> {
    return this.effects.attachTo(result);
  }

  /** Kafka's `onLoaded` for classic groups: every member's session restarts; an over-full group rebalances. */
  onLoaded(loaded: ClassicGroup[]): void {
    for (const group of loaded) {
      for (const member of group.allMembers()) this.liveness.heartbeat(group, member);
      if (group.size > this.env.config.groupMaxSize) {
        this.joins.prepareRebalance(
          group,
          `Freshly-loaded group is over capacity (${this.env.config.groupMaxSize}). Rebalancing in order to give a chance for consumers to commit offsets`,
        );
      }
    }
  }

  /**
   * A topic was created or grew: every `consumer` group subscribed to it rebalances, so the new
   * partitions get assigned without waiting for the leader to notice.
   */
  onTopicChanged(topic: TopicInfo): void {
    for (const group of this.groups.list()) {
      if (!group.isConsumerGroup || !(group.is('Stable') || group.is('CompletingRebalance'))) continue;
      if (!group.subscribedTopics?.has(topic.name)) continue;
      this.joins.prepareRebalance(group, `topic ${topic.name} grew to ${topic.partitions} partitions`);
    }
  }

  /** Kafka's `onUnloaded`: every group goes Dead and every parked reply is answered NOT_COORDINATOR. */
  onUnloaded(): void {
    this.unloader.unloadAll();
  }
}
