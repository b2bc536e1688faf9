import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CohortConfig } from '../../config/cohort-config';
import { COHORT_NODE, type CohortNode } from '../../node/cohort-node';
import { AuditLogger } from '../audit-logger';
import { AuthorizationService, type Caller } from '../authorization/authorization.service';
import { CREATION_LEDGER, type CreatedKind, type CreationLedger } from './creation-ledger.port';
import { GroupRemovals } from './group-removals';

/** ShareGroupDescribe errors that say nothing of whether the group exists. */
const UNKNOWN_HERE: ReadonlySet<number> = new Set([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);

const VARIABLE: Record<CreatedKind, string> = { group: 'MAX_GROUPS_PER_PRINCIPAL', topic: 'MAX_TOPICS_PER_PRINCIPAL' };

/**
 * What one principal may create: MAX_GROUPS_PER_PRINCIPAL groups and MAX_TOPICS_PER_PRINCIPAL topics
 * (docs/security.md). Enforced at the edges, before the coordinator or the topic registry is called,
 * so a refused creation changes nothing and is answered with Kafka's 89 THROTTLING_QUOTA_EXCEEDED (as
 * KIP-599's controller mutation quota answers CreateTopics), its message naming the limit. Only a
 * creation is counted: joining or committing to a group that exists, whoever created it, is not.
 * A group frees its slot when the coordinator removes it (deleted, or emptied by offset expiry).
 * Super users are not counted.
 */
@Injectable()
export class CreationLimits implements OnApplicationShutdown {
  private readonly logger = new Logger('CreationLimits');
  private readonly max: Record<CreatedKind, number>;
  /**
   * Groups seen to exist here, until the coordinator reports their removal: a simple consumer commits
   * with generation -1 every time, and must not pay a DescribeGroups per commit.
   */
  private readonly existing = new Set<string>();

  constructor(
    config: CohortConfig,
    @Inject(CREATION_LEDGER) private readonly ledger: CreationLedger,
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    private readonly authorization: AuthorizationService,
    private readonly audit: AuditLogger,
    removals: GroupRemovals,
  ) {
    this.max = { group: config.security.maxGroupsPerPrincipal, topic: config.security.maxTopicsPerPrincipal };
    if (this.max.group > 0) {
      removals.listen((groupId) => {
        this.existing.delete(groupId);
        void this.release('group', groupId);
      });
    }
  }

  /**
   * Runs `create`, a request that creates group `groupId` when it does not exist (JoinGroup, a commit
   * with generation -1, an offset reset), charging the group to the caller if it does not exist yet.
   * A request that did not leave the group in place gives the slot back.
   */
  async creatingGroup<T>(caller: Caller, groupId: string, request: string, create: () => Promise<T>): Promise<T> {
    if (!this.counts('group', caller) || (await this.groupExists(groupId)) !== false) return create();
    await this.charge('group', caller, groupId, request);
    try {
      return await create();
    } finally {
      if ((await this.groupExists(groupId).catch(() => undefined)) === false) await this.release('group', groupId);
    }
  }

  /** Runs `create` (`POST /v1/topics`), charging the topic to the caller; a failed creation gives the slot back. */
  async creatingTopic<T>(caller: Caller, name: string, create: () => Promise<T>): Promise<T> {
    if (!this.counts('topic', caller) || this.node.topics.get(name) !== undefined) return create();
    await this.charge('topic', caller, name, 'POST /v1/topics');
    try {
      return await create();
    } catch (error) {
      if (this.node.topics.get(name) === undefined) await this.release('topic', name);
      throw error;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.ledger.close();
  }

  /** Whether groups are counted at all (MAX_GROUPS_PER_PRINCIPAL above 0). */
  get countsGroups(): boolean {
    return this.max.group > 0;
  }

  private counts(kind: CreatedKind, caller: Caller): boolean {
    return this.max[kind] > 0 && !this.authorization.isSuperUser(caller);
  }

  private async charge(kind: CreatedKind, caller: Caller, name: string, request: string): Promise<void> {
    const max = this.max[kind];
    let outcome = await this.ledger.claim(kind, caller.principal, name, max);
    if (outcome === 'full' && kind === 'group' && (await this.forgetRemovedGroups(caller.principal))) {
      outcome = await this.ledger.claim(kind, caller.principal, name, max);
    }
    if (outcome !== 'full') return;
    const message = `${caller.principal} has created ${max} ${kind}s, the most ${VARIABLE[kind]}=${max} allows; delete one to create '${name}'`;
    this.audit.denied({
      ...caller,
      operation: 'CREATE',
      resourceType: kind.toUpperCase(),
      resourceName: name,
      request,
      detail: `${VARIABLE[kind]}=${max}`,
    });
    throw KafkaError.of('THROTTLING_QUOTA_EXCEEDED', message);
  }

  /**
   * At the limit, the principal's groups that this node coordinates are looked at once more: a group
   * that held nothing and vanished with a crash or restart (it never reached the log, so no removal was
   * reported) frees its slot. True if one did.
   */
  private async forgetRemovedGroups(principal: string): Promise<boolean> {
    const coordinator = this.node.coordinator;
    const local = (await this.ledger.held('group', principal)).filter((groupId) =>
      coordinator.isServing(coordinator.partitionFor(groupId)),
    );
    let released = false;
    for (const groupId of local) {
      if ((await this.groupExists(groupId, true)) !== false) continue;
      await this.release('group', groupId);
      released = true;
    }
    return released;
  }

  /**
   * Whether the coordinator holds the group, of whichever type; undefined when it cannot tell (not its
   * coordinator, loading). `fresh` asks past the cache. DescribeGroups answers GROUP_ID_NOT_FOUND for a
   * consumer group (KIP-848) and Dead for a share group (KIP-932), which ShareGroupDescribe describes.
   */
  private async groupExists(groupId: string, fresh = false): Promise<boolean | undefined> {
    if (!fresh && this.existing.has(groupId)) return true;
    const coordinator = this.node.coordinator;
    const described = (await coordinator.describeGroups({ groups: [groupId] })).groups[0];
    if (!described) return undefined;
    if (described.errorCode === ErrorCode.NONE && described.groupState === 'Dead') {
      const share = (await coordinator.shareGroupDescribe({ groupIds: [groupId] })).groups[0];
      if (share && UNKNOWN_HERE.has(share.errorCode)) return undefined;
      if (share?.errorCode !== ErrorCode.NONE) {
        this.existing.delete(groupId);
        return false;
      }
    } else if (described.errorCode !== ErrorCode.NONE && described.errorCode !== ErrorCode.GROUP_ID_NOT_FOUND) {
      return undefined;
    }
    this.existing.add(groupId);
    return true;
  }

  private async release(kind: CreatedKind, name: string): Promise<void> {
    try {
      await this.ledger.release(kind, name);
    } catch (error) {
      // Counted too many, never too few: the principal may be refused one creation early.
      this.logger.warn(
        `could not give back ${kind} '${name}' to its creator's count: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}
