import type { AdminApi, AdminOptions, AclBinding, AssignorInfo, ClusterInfo, GroupDescription, GroupLag, GroupListing, GroupOffsets, PartitionInfo, RebalanceRecord, ResetOffsetsRequest, ResetOffsetsResult, TopicInfo } from './admin-api';
import { AdminError } from './admin-error';

/** Kafka's NETWORK_EXCEPTION: no node could be reached. */
const NETWORK_EXCEPTION = 13;

/**
 * The admin calls over REST with the global `fetch` (Node 20 and browsers). URLs are tried in order;
 * only a failure to connect moves on to the next one (an answer, even an error, is final).
 */
export class RestAdmin implements AdminApi {
  private readonly urls: string[];
  private readonly fetch: typeof fetch;

  constructor(private readonly options: AdminOptions) {
    if (options.urls.length === 0) throw new Error('RestAdmin needs at least one URL');
    this.urls = options.urls.map((url) => url.replace(/\/+$/, ''));
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  listGroups(options: { states?: string[] } = {}): Promise<GroupListing[]> {
    return this.call('GET', `/v1/groups${query({ state: options.states?.join(',') })}`);
  }
  describeGroup(groupId: string): Promise<GroupDescription> {
    return this.call('GET', `/v1/groups/${enc(groupId)}`);
  }
  async deleteGroup(groupId: string): Promise<void> {
    await this.call('DELETE', `/v1/groups/${enc(groupId)}`);
  }
  groupRebalances(groupId: string): Promise<RebalanceRecord[]> {
    return this.call('GET', `/v1/groups/${enc(groupId)}/rebalances`);
  }
  groupLag(groupId: string): Promise<GroupLag> {
    return this.call('GET', `/v1/groups/${enc(groupId)}/lag`);
  }
  fetchOffsets(groupId: string): Promise<GroupOffsets> {
    return this.call('GET', `/v1/groups/${enc(groupId)}/offsets`);
  }
  setOffsets(groupId: string, topics: { name: string; partitions: { partitionIndex: number; committedOffset: number }[] }[]): Promise<unknown> {
    return this.call('POST', `/v1/groups/${enc(groupId)}/offsets`, { topics });
  }
  resetOffsets(groupId: string, request: ResetOffsetsRequest): Promise<ResetOffsetsResult> {
    return this.call('POST', `/v1/groups/${enc(groupId)}/offsets/reset`, request);
  }
  deleteOffsets(groupId: string, topic: string, partition?: number): Promise<unknown> {
    return this.call('DELETE', `/v1/groups/${enc(groupId)}/offsets${query({ topic, partition })}`);
  }
  listTopics(): Promise<TopicInfo[]> {
    return this.call('GET', '/v1/topics');
  }
  describeTopic(name: string): Promise<TopicInfo> {
    return this.call('GET', `/v1/topics/${enc(name)}`);
  }
  createTopic(name: string, partitions: number): Promise<TopicInfo> {
    return this.call('POST', '/v1/topics', { name, partitions });
  }
  alterTopic(name: string, partitions: number): Promise<TopicInfo> {
    return this.call('PATCH', `/v1/topics/${enc(name)}`, { partitions });
  }
  reportOffsets(topic: string, partitions: { partition: number; endOffset: number; startOffset?: number }[]): Promise<unknown> {
    return this.call('PUT', `/v1/topics/${enc(topic)}/end-offsets`, { partitions });
  }
  cluster(): Promise<ClusterInfo> {
    return this.call('GET', '/v1/cluster');
  }
  clusterPartitions(): Promise<PartitionInfo[]> {
    return this.call('GET', '/v1/cluster/partitions');
  }
  listAcls(filter: Partial<AclBinding> = {}): Promise<AclBinding[]> {
    const { principal, resourceType, resourceName, patternType } = filter;
    return this.call('GET', `/v1/acls${query({ principal, resourceType, resourceName, patternType })}`);
  }
  createAcls(acls: AclBinding[]): Promise<unknown> {
    return this.call('POST', '/v1/acls', { acls });
  }
  deleteAcls(filters: Partial<AclBinding>[]): Promise<{ deleted: AclBinding[] }> {
    return this.call('DELETE', '/v1/acls', { filters });
  }
  listAssignors(): Promise<AssignorInfo[]> {
    return this.call('GET', '/v1/assignors');
  }
  assign(name: string, input: unknown): Promise<unknown> {
    return this.call('POST', `/v1/assignors/${enc(name)}/assign`, input);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = typeof this.options.token === 'function' ? await this.options.token() : this.options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const failures: string[] = [];
    for (const url of this.urls) {
      let response: Response;
      try {
        response = await this.fetch(`${url}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
        });
      } catch (error) {
        failures.push(`${url}: ${describe(error)}`);
        continue;
      }
      return parse<T>(response);
    }
    throw new AdminError('NETWORK_EXCEPTION', NETWORK_EXCEPTION, `no node answered (${failures.join('; ')})`);
  }
}

async function parse<T>(response: Response): Promise<T> {
  const text = await response.text();
  let json: unknown = undefined;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: reported below if it is an error
  }
  if (response.ok) return json as T;
  const error = (json ?? {}) as { errorCode?: number; error?: string; message?: string };
  const name = typeof error.error === 'string' ? error.error : 'UNKNOWN_SERVER_ERROR';
  throw new AdminError(name, typeof error.errorCode === 'number' ? error.errorCode : -1, error.message ?? (text || `HTTP ${response.status}`), response.status);
}

function enc(segment: string): string {
  return encodeURIComponent(segment);
}

function query(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params).filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '');
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}`;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message || (error.cause as { code?: string }).code : undefined;
  return cause ? `${error.message} (${cause})` : error.message;
}
