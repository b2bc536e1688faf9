import type {
  DescribeGroupsRequest,
  DescribeGroupsResponse,
  ShareGroupDescribeRequest,
  ShareGroupDescribeResponse,
} from '@cohort/protocol';
import { KafkaError } from '@cohort/protocol';
import type { CohortConfig } from '../../config/cohort-config';
import type { CohortNode } from '../../node/cohort-node';
import type { AuditEvent, AuditLogger } from '../audit-logger';
import type { AuthorizationService } from '../authorization/authorization.service';
import type { ClaimOutcome, CreatedKind, CreationLedger } from './creation-ledger.port';
import { CreationLimits } from './creation-limits';
import { GroupRemovals } from './group-removals';

/** A ledger in memory, with the file ledger's rules. */
class MemoryLedger implements CreationLedger {
  readonly owners = new Map<string, string>();
  claim(kind: CreatedKind, principal: string, name: string, max: number): Promise<ClaimOutcome> {
    const key = `${kind}:${name}`;
    if (this.owners.get(key) === principal) return Promise.resolve('held');
    if ([...this.owners].filter(([k, p]) => k.startsWith(`${kind}:`) && p === principal).length >= max)
      return Promise.resolve('full');
    this.owners.set(key, principal);
    return Promise.resolve('claimed');
  }
  release(kind: CreatedKind, name: string): Promise<void> {
    this.owners.delete(`${kind}:${name}`);
    return Promise.resolve();
  }
  held(kind: CreatedKind, principal: string): Promise<string[]> {
    return Promise.resolve(
      [...this.owners]
        .filter(([k, p]) => k.startsWith(`${kind}:`) && p === principal)
        .map(([k]) => k.slice(kind.length + 1)),
    );
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const APP = { principal: 'User:app', host: '127.0.0.1' };
const ADMIN = { principal: 'User:admin', host: '127.0.0.1' };

function setUp(maxGroups = 2) {
  const groups = new Set<string>(); // what the coordinator holds
  const types = new Map<string, 'consumer' | 'share'>(); // groups of other types than classic
  const topics = new Set<string>();
  const node = {
    coordinator: {
      describeGroups: (request: DescribeGroupsRequest): Promise<DescribeGroupsResponse> =>
        Promise.resolve({
          errorCode: 0,
          // As the coordinator answers: a consumer group is not found, a share group is not known (Dead).
          groups: request.groups.map((groupId) => ({
            errorCode: groups.has(groupId) && types.get(groupId) === 'consumer' ? 69 : 0,
            groupId,
            groupState: groups.has(groupId) && !types.has(groupId) ? 'Empty' : 'Dead',
            protocolType: '',
            protocolData: '',
            members: [],
          })),
        }),
      shareGroupDescribe: (request: ShareGroupDescribeRequest): Promise<ShareGroupDescribeResponse> =>
        Promise.resolve({
          errorCode: 0,
          groups: request.groupIds.map((groupId) => ({
            errorCode: groups.has(groupId) && types.get(groupId) === 'share' ? 0 : 69,
            groupId,
            groupState: groups.has(groupId) ? 'Empty' : 'Dead',
            groupEpoch: 0,
            assignmentEpoch: 0,
            assignorName: '',
            members: [],
          })),
        }),
      partitionFor: () => 0,
      isServing: () => true,
    },
    topics: { get: (name: string) => (topics.has(name) ? { name } : undefined) },
  } as unknown as CohortNode;
  const config = { security: { maxGroupsPerPrincipal: maxGroups, maxTopicsPerPrincipal: 1 } } as CohortConfig;
  const authorization = {
    isSuperUser: (caller: { principal: string }) => caller.principal === 'User:admin',
  } as unknown as AuthorizationService;
  const audits: AuditEvent[] = [];
  const audit = { denied: (event: AuditEvent) => void audits.push(event) } as unknown as AuditLogger;
  const ledger = new MemoryLedger();
  const removals = new GroupRemovals();
  const limits = new CreationLimits(config, ledger, node, authorization, audit, removals);
  const create = (groupId: string) => () => {
    groups.add(groupId);
    return Promise.resolve('created');
  };
  const createTyped = (groupId: string, type: 'consumer' | 'share') => () => {
    groups.add(groupId);
    types.set(groupId, type);
    return Promise.resolve('created');
  };
  return { limits, ledger, groups, topics, removals, audits, create, createTyped };
}

describe('CreationLimits', () => {
  it('refuses the group over the limit with 89 naming it, before the coordinator is called, and audits it', async () => {
    const { limits, groups, audits, create } = setUp();
    await limits.creatingGroup(APP, 'g1', 'JoinGroup', create('g1'));
    await limits.creatingGroup(APP, 'g2', 'JoinGroup', create('g2'));
    const refused = limits.creatingGroup(APP, 'g3', 'JoinGroup', create('g3'));
    await expect(refused).rejects.toThrow(KafkaError);
    await expect(refused).rejects.toMatchObject({
      errorCode: 89,
      message: expect.stringContaining('MAX_GROUPS_PER_PRINCIPAL=2'),
    });
    expect(groups.has('g3')).toBe(false);
    expect(audits).toEqual([
      expect.objectContaining({
        principal: 'User:app',
        operation: 'CREATE',
        resourceType: 'GROUP',
        resourceName: 'g3',
        request: 'JoinGroup',
      }),
    ]);
  });

  it('counts consumer and share groups a heartbeat creates, keeps them while they exist, and refuses one over the limit', async () => {
    const { limits, ledger, groups, createTyped } = setUp(2);
    await limits.creatingGroup(APP, 'c1', 'ConsumerGroupHeartbeat', createTyped('c1', 'consumer'));
    await limits.creatingGroup(APP, 's1', 'ShareGroupHeartbeat', createTyped('s1', 'share'));
    expect([...ledger.owners]).toEqual([
      ['group:c1', 'User:app'],
      ['group:s1', 'User:app'],
    ]);
    // Joining them again is not a creation.
    await limits.creatingGroup(APP, 'c1', 'ConsumerGroupHeartbeat', createTyped('c1', 'consumer'));
    await limits.creatingGroup(APP, 's1', 'ShareGroupHeartbeat', createTyped('s1', 'share'));
    for (const [groupId, request, type] of [
      ['c3', 'ConsumerGroupHeartbeat', 'consumer'],
      ['s3', 'ShareGroupHeartbeat', 'share'],
    ] as const) {
      await expect(limits.creatingGroup(APP, groupId, request, createTyped(groupId, type))).rejects.toMatchObject({
        errorCode: 89,
        message: expect.stringContaining('MAX_GROUPS_PER_PRINCIPAL=2'),
      });
      expect(groups.has(groupId)).toBe(false);
    }
    expect(ledger.owners.size).toBe(2);
  });

  it('does not count joining a group that exists, nor a super user', async () => {
    const { limits, ledger, groups, create } = setUp(1);
    groups.add('theirs');
    await limits.creatingGroup(APP, 'theirs', 'JoinGroup', create('theirs'));
    await limits.creatingGroup(ADMIN, 'admin-1', 'JoinGroup', create('admin-1'));
    await limits.creatingGroup(ADMIN, 'admin-2', 'JoinGroup', create('admin-2'));
    expect(ledger.owners.size).toBe(0);
    await limits.creatingGroup(APP, 'mine', 'JoinGroup', create('mine'));
    expect([...ledger.owners]).toEqual([['group:mine', 'User:app']]);
  });

  it('gives the slot back when the request left no group, when the coordinator removes the group, and when a group vanished unreported', async () => {
    const { limits, ledger, groups, removals, create } = setUp(1);
    await limits.creatingGroup(APP, 'refused', 'JoinGroup', () => Promise.resolve('INVALID_SESSION_TIMEOUT'));
    expect(ledger.owners.size).toBe(0);

    await limits.creatingGroup(APP, 'g1', 'JoinGroup', create('g1'));
    groups.delete('g1');
    removals.removed('g1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(ledger.owners.size).toBe(0);

    await limits.creatingGroup(APP, 'g2', 'JoinGroup', create('g2'));
    groups.delete('g2'); // gone with a restart, never reported
    await limits.creatingGroup(APP, 'g3', 'JoinGroup', create('g3'));
    expect([...ledger.owners]).toEqual([['group:g3', 'User:app']]);
  });

  it('counts topics the principal creates, and gives back the slot of a creation that failed', async () => {
    const { limits, ledger, topics } = setUp();
    await expect(
      limits.creatingTopic(APP, 'bad name', () => Promise.reject(KafkaError.of('INVALID_REQUEST', 'not legal'))),
    ).rejects.toMatchObject({ errorCode: 42 });
    expect(ledger.owners.size).toBe(0);
    await limits.creatingTopic(APP, 't1', () => Promise.resolve(topics.add('t1')));
    await expect(limits.creatingTopic(APP, 't2', () => Promise.resolve(topics.add('t2')))).rejects.toMatchObject({
      errorCode: 89,
      message: expect.stringContaining('MAX_TOPICS_PER_PRINCIPAL=1'),
    });
    expect(topics.has('t2')).toBe(false);
  });
});
