import { Injectable } from '@nestjs/common';
import type { Socket } from 'socket.io';
import * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import { AuditLogger } from '../../security/audit-logger';
import { AuthorizationService, type Caller } from '../../security/authorization/authorization.service';
import { callerOfSocket } from '../../security/authorization/caller-of';
import { CreationLimits } from '../../security/limits/creation-limits';
import {
  mergeByGroup,
  mergeTopics,
  refusal,
  refusedFetchTopic,
  refusedGroup,
  refusedPartitions,
} from './partial-responses';
import { type GroupRequest, requireGroup, splitGroups } from './group-access';
import { ConsumerGroupAuthorization } from './consumer-group-authorization';
import { ShareAcquireAuthorization } from './share-acquire-authorization';
import { ShareGroupAuthorization } from './share-group-authorization';

/**
 * The socket.io events' ACL checks, made before the coordinator is called as Kafka's KafkaApis makes
 * them, with Kafka's partial answers: 29 per partition for refused topics while the others are
 * committed or fetched, refused topics left out of all-topics answers, 30 per group in DescribeGroups
 * and DeleteGroups, ListGroups filtered. With authorization off (no authentication) every method is
 * a straight call. Every refusal but a list filter is one audit line; deletions are audited as changes.
 */
@Injectable()
export class GatewayAuthorization {
  /** The checks of Kafka 4's consumer group requests (KIP-848). */
  readonly consumerGroups: ConsumerGroupAuthorization;
  /** The checks of share groups' ShareAcquire and ShareAcknowledge (KIP-932). */
  readonly sharePartitions: ShareAcquireAuthorization;
  /** The checks of the share group membership requests (KIP-932). */
  readonly shareGroups: ShareGroupAuthorization;

  constructor(
    private readonly authorization: AuthorizationService,
    private readonly audit: AuditLogger,
    private readonly limits: CreationLimits,
  ) {
    this.consumerGroups = new ConsumerGroupAuthorization(authorization);
    this.sharePartitions = new ShareAcquireAuthorization(authorization);
    this.shareGroups = new ShareGroupAuthorization(authorization);
  }

  /** JoinGroup: READ GROUP (30); a member without id joining a group that does not exist creates it, within MAX_GROUPS_PER_PRINCIPAL (89). */
  joinGroup(
    socket: Socket,
    request: P.JoinGroupRequest,
    join: () => Promise<P.JoinGroupResponse>,
  ): Promise<P.JoinGroupResponse> {
    this.requireGroup(socket, 'JoinGroup', request.groupId);
    const audited = (): Promise<P.JoinGroupResponse> =>
      join().then((response) => this.auditQuota(socket, 'JoinGroup', request.groupId, response));
    if (request.memberId !== '') return audited();
    return this.limits
      .creatingGroup(callerOfSocket(socket), request.groupId, 'JoinGroup', audited)
      .catch((error: unknown) => {
        if (error instanceof P.KafkaError && error.errorCode === ErrorCode.THROTTLING_QUOTA_EXCEEDED)
          throw refusal('JoinGroup', error.errorCode, error.message);
        throw error;
      });
  }

  /**
   * A ConsumerGroupHeartbeat or ShareGroupHeartbeat joining (epoch 0) a group that does not exist creates
   * it, within MAX_GROUPS_PER_PRINCIPAL as a JoinGroup: over it, the heartbeat is answered 89 and nothing
   * is created. A heartbeat the coordinator refused over a membership limit is one audit line.
   */
  /** Whether MAX_GROUPS_PER_PRINCIPAL counts anything on this node (a join need not ask it otherwise). */
  get limitsGroupCreation(): boolean {
    return this.limits.countsGroups;
  }

  joiningGroup<T extends { errorCode: number; errorMessage?: string | null }>(
    socket: Socket,
    request: 'ConsumerGroupHeartbeat' | 'ShareGroupHeartbeat',
    heartbeat: { groupId: string },
    join: () => Promise<T>,
  ): Promise<T> {
    const audited = (): Promise<T> =>
      join().then((response) => this.auditQuota(socket, request, heartbeat.groupId, response));
    return this.limits
      .creatingGroup(callerOfSocket(socket), heartbeat.groupId, request, audited)
      .catch((error: unknown) => {
        if (error instanceof P.KafkaError && error.errorCode === ErrorCode.THROTTLING_QUOTA_EXCEEDED)
          throw refusal(request, error.errorCode, error.message);
        throw error;
      });
  }

  /** The caller as the ACLs know it when they are on (a regex member is given only what it may describe). */
  aclCaller(socket: Socket): Caller | undefined {
    return this.authorization.enabled ? callerOfSocket(socket) : undefined;
  }

  /**
   * The principal a JoinGroup's members count against (MAX_MEMBERS_PER_PRINCIPAL,
   * MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL): the caller's, except for super users, who are not counted.
   */
  membershipPrincipal(socket: Socket): string | undefined {
    const caller = callerOfSocket(socket);
    return this.authorization.isSuperUser(caller) ? undefined : caller.principal;
  }

  /** A join the coordinator refused over a membership limit is a denial like the others: one audit line. */
  private auditQuota<T extends { errorCode: number; errorMessage?: string | null }>(
    socket: Socket,
    request: string,
    groupId: string,
    response: T,
  ): T {
    if (response.errorCode === ErrorCode.THROTTLING_QUOTA_EXCEEDED)
      this.audit.denied({
        ...callerOfSocket(socket),
        operation: 'READ',
        resourceType: 'GROUP',
        resourceName: groupId,
        request,
        detail: response.errorMessage ?? 'THROTTLING_QUOTA_EXCEEDED',
      });
    return response;
  }

  /** FindCoordinator (DESCRIBE GROUP) and the member requests (READ GROUP): 30 for the whole request. */
  requireGroup(socket: Socket, request: GroupRequest, groupId: string): void {
    requireGroup(this.authorization, socket, request, groupId);
  }

  /** Metadata: the topics to answer for and those refused (29); an all-topics request leaves refused topics out. */
  metadataTopics(
    socket: Socket,
    requested: string[] | null,
    all: () => string[],
  ): { names: string[]; refused: ReadonlySet<string> } {
    if (!this.authorization.enabled) return { names: requested ?? all(), refused: new Set() };
    const caller = callerOfSocket(socket);
    if (requested === null)
      return {
        names: this.authorization.filter(caller, 'DESCRIBE', 'TOPIC', all(), (name) => name),
        refused: new Set(),
      };
    return {
      names: requested,
      refused: this.authorization.refusedOf(caller, 'DESCRIBE', 'TOPIC', requested, 'Metadata'),
    };
  }

  async offsetCommit(
    socket: Socket,
    request: P.OffsetCommitRequest,
    commitAllowed: (allowed: P.OffsetCommitRequest) => Promise<P.OffsetCommitResponse>,
  ): Promise<P.OffsetCommitResponse> {
    const caller = callerOfSocket(socket);
    // Generation -1 (a simple consumer, an admin) creates the group when it does not exist: counted.
    const commit = (allowed: P.OffsetCommitRequest) =>
      request.generationId < 0 ? this.creatingByCommit(caller, allowed, commitAllowed) : commitAllowed(allowed);
    if (!this.authorization.enabled) return commit(request);
    // Kafka: a refused group refuses every partition with 30, with no top-level error.
    if (!this.authorization.check(caller, 'READ', 'GROUP', request.groupId, 'OffsetCommit')) {
      return {
        errorCode: ErrorCode.NONE,
        topics: refusedPartitions(request.topics, ErrorCode.GROUP_AUTHORIZATION_FAILED),
      };
    }
    const [allowed, refused] = this.splitTopics(caller, 'READ', request.topics, 'OffsetCommit');
    if (refused.length === 0) return commit(request);
    const answered =
      allowed.length > 0 ? await commit({ ...request, topics: allowed }) : { errorCode: ErrorCode.NONE, topics: [] };
    return {
      ...answered,
      topics: mergeTopics(
        request.topics,
        answered.topics,
        refusedPartitions(refused, ErrorCode.TOPIC_AUTHORIZATION_FAILED),
      ),
    };
  }

  async offsetFetch(
    socket: Socket,
    request: P.OffsetFetchRequest,
    fetch: (allowed: P.OffsetFetchRequest) => Promise<P.OffsetFetchResponse>,
  ): Promise<P.OffsetFetchResponse> {
    if (!this.authorization.enabled) return fetch(request);
    const caller = callerOfSocket(socket);
    if (!this.authorization.check(caller, 'DESCRIBE', 'GROUP', request.groupId, 'OffsetFetch')) {
      throw refusal(
        'OffsetFetch',
        ErrorCode.GROUP_AUTHORIZATION_FAILED,
        `${caller.principal} may not DESCRIBE group '${request.groupId}'`,
      );
    }
    if (request.topics === null) {
      // All topics: those the caller may not describe are dropped silently, as Kafka does.
      const answered = await fetch(request);
      return {
        ...answered,
        topics: this.authorization.filter(caller, 'DESCRIBE', 'TOPIC', answered.topics, (topic) => topic.name),
      };
    }
    const [allowed, refused] = this.splitTopics(caller, 'DESCRIBE', request.topics, 'OffsetFetch');
    if (refused.length === 0) return fetch(request);
    const answered =
      allowed.length > 0 ? await fetch({ ...request, topics: allowed }) : { errorCode: ErrorCode.NONE, topics: [] };
    return { ...answered, topics: mergeTopics(request.topics, answered.topics, refused.map(refusedFetchTopic)) };
  }

  async offsetDelete(
    socket: Socket,
    request: P.OffsetDeleteRequest,
    remove: (allowed: P.OffsetDeleteRequest) => Promise<P.OffsetDeleteResponse>,
  ): Promise<P.OffsetDeleteResponse> {
    const caller = callerOfSocket(socket);
    if (
      this.authorization.enabled &&
      !this.authorization.check(caller, 'DELETE', 'GROUP', request.groupId, 'OffsetDelete')
    ) {
      throw refusal(
        'OffsetDelete',
        ErrorCode.GROUP_AUTHORIZATION_FAILED,
        `${caller.principal} may not DELETE group '${request.groupId}'`,
      );
    }
    const [allowed, refused] = this.authorization.enabled
      ? this.splitTopics(caller, 'READ', request.topics, 'OffsetDelete')
      : [request.topics, []];
    const answered =
      refused.length === 0
        ? await remove(request)
        : allowed.length > 0
          ? await remove({ ...request, topics: allowed })
          : { errorCode: ErrorCode.NONE, topics: [] };
    if (allowed.length > 0)
      this.auditChange(
        caller,
        'DELETE',
        request.groupId,
        'OffsetDelete',
        answered.errorCode,
        `topics ${allowed.map((t) => t.name).join(',')}`,
      );
    if (refused.length === 0) return answered;
    return {
      ...answered,
      topics: mergeTopics(
        request.topics,
        answered.topics,
        refusedPartitions(refused, ErrorCode.TOPIC_AUTHORIZATION_FAILED),
      ),
    };
  }

  async describeGroups(
    socket: Socket,
    request: P.DescribeGroupsRequest,
    describe: (allowed: P.DescribeGroupsRequest) => Promise<P.DescribeGroupsResponse>,
  ): Promise<P.DescribeGroupsResponse> {
    if (!this.authorization.enabled) return describe(request);
    const [allowed, refused] = this.splitGroups(callerOfSocket(socket), 'DESCRIBE', request.groups, 'DescribeGroups');
    if (refused.length === 0) return describe(request);
    const answered =
      allowed.length > 0 ? await describe({ groups: allowed }) : { errorCode: ErrorCode.NONE, groups: [] };
    return { ...answered, groups: mergeByGroup(request.groups, answered.groups, refused.map(refusedGroup)) };
  }

  async listGroups(socket: Socket, list: () => Promise<P.ListGroupsResponse>): Promise<P.ListGroupsResponse> {
    const answered = await list();
    if (!this.authorization.enabled) return answered;
    return {
      ...answered,
      groups: this.authorization.visibleGroups(callerOfSocket(socket), answered.groups, (group) => group.groupId),
    };
  }

  async deleteGroups(
    socket: Socket,
    request: P.DeleteGroupsRequest,
    remove: (allowed: P.DeleteGroupsRequest) => Promise<P.DeleteGroupsResponse>,
  ): Promise<P.DeleteGroupsResponse> {
    const caller = callerOfSocket(socket);
    const [allowed, refused] = this.authorization.enabled
      ? this.splitGroups(caller, 'DELETE', request.groupsNames, 'DeleteGroups')
      : [request.groupsNames, []];
    const answered =
      refused.length === 0
        ? await remove(request)
        : allowed.length > 0
          ? await remove({ groupsNames: allowed })
          : { errorCode: ErrorCode.NONE, results: [] };
    for (const result of answered.results)
      this.auditChange(caller, 'DELETE', result.groupId, 'DeleteGroups', result.errorCode);
    if (refused.length === 0) return answered;
    const refusedResults = refused.map((groupId) => ({ groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED }));
    return { ...answered, results: mergeByGroup(request.groupsNames, answered.results, refusedResults) };
  }

  /** A commit that may create its group: over MAX_GROUPS_PER_PRINCIPAL every partition is refused with 89, nothing committed. */
  private async creatingByCommit(
    caller: Caller,
    request: P.OffsetCommitRequest,
    commit: (allowed: P.OffsetCommitRequest) => Promise<P.OffsetCommitResponse>,
  ): Promise<P.OffsetCommitResponse> {
    try {
      return await this.limits.creatingGroup(caller, request.groupId, 'OffsetCommit', () => commit(request));
    } catch (error) {
      if (!(error instanceof P.KafkaError) || error.errorCode !== ErrorCode.THROTTLING_QUOTA_EXCEEDED) throw error;
      return {
        errorCode: error.errorCode,
        errorName: 'THROTTLING_QUOTA_EXCEEDED',
        errorMessage: error.message,
        topics: refusedPartitions(request.topics, error.errorCode),
      };
    }
  }

  /** Topics split into those the caller may `operation` and the others (names checked once each, one audit line). */
  private splitTopics<T extends { name: string }>(
    caller: Caller,
    operation: P.AclOperation,
    topics: readonly T[],
    request: string,
  ): [T[], T[]] {
    const refusedNames = this.authorization.refusedOf(
      caller,
      operation,
      'TOPIC',
      topics.map((topic) => topic.name),
      request,
    );
    const allowed: T[] = [];
    const refused: T[] = [];
    for (const topic of topics) (refusedNames.has(topic.name) ? refused : allowed).push(topic);
    return [allowed, refused];
  }

  private splitGroups(
    caller: Caller,
    operation: P.AclOperation,
    groups: readonly string[],
    request: string,
  ): [string[], string[]] {
    return splitGroups(this.authorization, caller, operation, groups, request);
  }

  private auditChange(
    caller: Caller,
    operation: string,
    groupId: string,
    request: string,
    errorCode: number,
    detail?: string,
  ): void {
    const failed = errorCode !== ErrorCode.NONE;
    const why = [detail, failed ? P.errorName(errorCode) : undefined].filter(Boolean).join('; ');
    this.audit.changed(
      { ...caller, operation, resourceType: 'GROUP', resourceName: groupId, request, ...(why ? { detail: why } : {}) },
      failed,
    );
  }
}
