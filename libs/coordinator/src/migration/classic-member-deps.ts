import type { ShardEnv } from '../context/shard-env';
import type { OperationEffects } from '../runtime/operation-effects';
import type { ConsumerGroupManager } from '../consumer/consumer-group-manager';
import type { GroupMigration } from './group-migration';

/** What the classic requests to a consumer group need of the shard. */
export interface ClassicMemberDeps {
  consumer: ConsumerGroupManager;
  effects: OperationEffects;
  env: Pick<ShardEnv, 'config' | 'clock'>;
  /** Kafka's `generateMemberId` (`clientId-uuid`, or `instanceId-uuid`), from the shard's random source. */
  generateMemberId: (clientId: string, instanceId: string | null) => string;
  /** The connection the member last spoke on, where its pushes go (undefined: none known). */
  remember: (groupId: string, memberId: string, connectionId: string | undefined) => void;
  /** Tells these members to heartbeat (or, classic ones, to rejoin) now: their target changed. */
  heartbeatNow: (groupId: string, memberIds: Iterable<string>, reason: string) => void;
  /** The online migration, for a static member's takeover that makes the group classic. */
  migration: Pick<GroupMigration, 'downgradeOnReplace'>;
  /** Whether a timer is armed under `key` (a join deadline is armed only if absent, as Kafka's). */
  timerArmed: (key: string) => boolean;
}
