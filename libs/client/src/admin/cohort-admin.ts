import type {
  AclBinding,
  AclBindingFilter,
  CreateAclsResponse,
  DeleteAclsResponse,
  AssignDryRunRequest,
  AssignDryRunResult,
  AssignorInfo,
  ClusterInfo,
  EndOffsetReport,
  GroupDescription,
  GroupLag,
  GroupListing,
  GroupOffsets,
  OffsetsWriteResult,
  PartitionInfo,
  RebalanceRecord,
  ResetOffsetsRequest,
  ResetOffsetsResult,
  SetOffsetsTopic,
  TopicInfo,
} from '@cohort/protocol';
import { RestTransport, type RestTransportOptions } from './rest-transport';
import { groupPathSegment } from '@cohort/protocol';

export type AdminOptions = RestTransportOptions;

/**
 * `admin.acls`: Kafka's Admin `describeAcls`, `createAcls` and `deleteAcls` over `/v1/acls`
 * (docs/security.md). Listing needs DESCRIBE on the CLUSTER, changes ALTER on it.
 */
export interface AclAdmin {
  /** The bindings matching every field the filter gives (all bindings without one). */
  list(filter?: AclBindingFilter): Promise<AclBinding[]>;
  /** Stores the bindings, all or none (one invalid binding refuses the call); answers them as stored. */
  create(bindings: AclBinding[]): Promise<AclBinding[]>;
  /** Deletes every binding matching any of the filters; answers those deleted. */
  delete(filters: AclBindingFilter[]): Promise<AclBinding[]>;
}

/**
 * The operator calls over REST, for scripts, the CLI and the dashboard. Works wherever a global
 * `fetch` exists (Node 20+, browsers; a page's origin must be in the node's CORS_ORIGINS). Every
 * method rejects with a CohortError carrying the Kafka error code and name of the REST error body,
 * and `status` set to the HTTP status.
 */
export class CohortAdmin {
  private readonly rest: RestTransport;

  /** ACLs: `admin.acls.list(filter)`, `.create(bindings)`, `.delete(filters)` (SPEC's `acls`). */
  readonly acls: AclAdmin = {
    list: (filter) => this.listAcls(filter),
    create: async (bindings) => (await this.createAcls(bindings)).created,
    delete: async (filters) => (await this.deleteAcls(filters)).deleted,
  };

  constructor(options: AdminOptions) {
    this.rest = new RestTransport(options);
  }

  listGroups(options: { states?: string[] } = {}): Promise<GroupListing[]> {
    const state = options.states && options.states.length > 0 ? options.states.join(',') : undefined;
    return this.rest.request({ method: 'GET', path: '/v1/groups', query: { state } });
  }

  describeGroup(groupId: string): Promise<GroupDescription> {
    return this.rest.request({ method: 'GET', path: group(groupId) });
  }

  async deleteGroup(groupId: string): Promise<void> {
    await this.rest.request({ method: 'DELETE', path: group(groupId) });
  }

  groupRebalances(groupId: string): Promise<RebalanceRecord[]> {
    return this.rest.request({ method: 'GET', path: `${group(groupId)}/rebalances` });
  }

  groupLag(groupId: string): Promise<GroupLag> {
    return this.rest.request({ method: 'GET', path: `${group(groupId)}/lag` });
  }

  fetchOffsets(groupId: string): Promise<GroupOffsets> {
    return this.rest.request({ method: 'GET', path: `${group(groupId)}/offsets` });
  }

  /** Sets committed offsets (a share group's start offsets, SPSO); the group must be Empty (else 409 NON_EMPTY_GROUP). */
  setOffsets(groupId: string, topics: SetOffsetsTopic[]): Promise<OffsetsWriteResult> {
    return this.rest.request({ method: 'POST', path: `${group(groupId)}/offsets`, body: { topics } });
  }

  /**
   * A dry run unless `request.dryRun` is false (then the group must be Empty). For a share group the
   * offsets are its start offsets (SPSO): each partition reset starts afresh there (docs/operations.md).
   */
  resetOffsets(groupId: string, request: ResetOffsetsRequest): Promise<ResetOffsetsResult> {
    return this.rest.request({ method: 'POST', path: `${group(groupId)}/offsets/reset`, body: request });
  }

  /** OffsetDelete: one partition, or every committed partition of the topic. */
  deleteOffsets(groupId: string, topic: string, partition?: number): Promise<OffsetsWriteResult> {
    return this.rest.request({ method: 'DELETE', path: `${group(groupId)}/offsets`, query: { topic, partition } });
  }

  listTopics(): Promise<TopicInfo[]> {
    return this.rest.request({ method: 'GET', path: '/v1/topics' });
  }

  describeTopic(name: string): Promise<TopicInfo> {
    return this.rest.request({ method: 'GET', path: topic(name) });
  }

  createTopic(name: string, partitions: number): Promise<TopicInfo> {
    return this.rest.request({ method: 'POST', path: '/v1/topics', body: { name, partitions } });
  }

  /** Grows a topic (shrinking is refused); subscribed `consumer` groups rebalance. */
  alterTopic(name: string, partitions: number): Promise<TopicInfo> {
    return this.rest.request({ method: 'PATCH', path: topic(name), body: { partitions } });
  }

  /** Log end (and start) offsets as a producer knows them, for lag and offset resets. */
  reportOffsets(name: string, partitions: EndOffsetReport[]): Promise<TopicInfo> {
    return this.rest.request({ method: 'PUT', path: `${topic(name)}/end-offsets`, body: { partitions } });
  }

  cluster(): Promise<ClusterInfo> {
    return this.rest.request({ method: 'GET', path: '/v1/cluster' });
  }

  clusterPartitions(): Promise<PartitionInfo[]> {
    return this.rest.request({ method: 'GET', path: '/v1/cluster/partitions' });
  }

  listAcls(filter: AclBindingFilter = {}): Promise<AclBinding[]> {
    const { principal, resourceType, resourceName, patternType, operation, permission, host } = filter;
    return this.rest.request({
      method: 'GET',
      path: '/v1/acls',
      query: { principal, resourceType, resourceName, patternType, operation, permission, host },
    });
  }

  createAcls(acls: AclBinding[]): Promise<CreateAclsResponse> {
    return this.rest.request({ method: 'POST', path: '/v1/acls', body: { acls } });
  }

  deleteAcls(filters: AclBindingFilter[]): Promise<DeleteAclsResponse> {
    return this.rest.request({ method: 'DELETE', path: '/v1/acls', body: { filters } });
  }

  listAssignors(): Promise<AssignorInfo[]> {
    return this.rest.request({ method: 'GET', path: '/v1/assignors' });
  }

  /** A dry run of a registered assignor on a group described in flat form. */
  assign(name: string, input: AssignDryRunRequest): Promise<AssignDryRunResult> {
    return this.rest.request({ method: 'POST', path: `/v1/assignors/${encodeURIComponent(name)}/assign`, body: input });
  }
}

function group(groupId: string): string {
  return `/v1/groups/${groupPathSegment(groupId)}`;
}

function topic(name: string): string {
  return `/v1/topics/${encodeURIComponent(name)}`;
}
