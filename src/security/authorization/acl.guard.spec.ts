import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ErrorCode, KafkaError, type AclBinding } from '@cohort/protocol';
import type { CohortConfig } from '../../config/cohort-config';
import { AuditLogger, type AuditEvent } from '../audit-logger';
import { AclGuard } from './acl.guard';
import type { AclStore } from './acl-store.port';
import { AuthorizationService } from './authorization.service';
import { fromBody, fromBodyTopics, fromParam, PublicRoute, RequireAcl } from './route-acl.decorator';

class Routes {
  undeclared(): void {}
  @PublicRoute() open(): void {}
  @RequireAcl({ request: 'DeleteGroups', group: fromParam('groupId') }) deleteGroup(): void {}
  @RequireAcl({ request: 'OffsetCommit', group: fromParam('groupId'), topics: fromBodyTopics() }) setOffsets(): void {}
  @RequireAcl({ request: 'CreateTopic', topics: fromBody('name') }) createTopic(): void {}
  @RequireAcl({ request: 'DescribeCluster' }) cluster(): void {}
  @RequireAcl({ request: 'ListGroups', filtered: true }) listGroups(): void {}
  @RequireAcl({ request: 'DeleteGroups' }) misdeclared(): void {}
  @RequireAcl({ request: 'OffsetFetch', group: fromParam('groupId'), filtered: true }) readOffsets(): void {}
}

const grant = (
  principal: string,
  operation: AclBinding['operation'],
  resourceType: AclBinding['resourceType'],
  resourceName: string,
): AclBinding => ({
  principal,
  host: '*',
  resourceType,
  resourceName,
  patternType: 'LITERAL',
  operation,
  permission: 'ALLOW',
});

async function guard(bindings: AclBinding[], enabled = true) {
  const store: AclStore = {
    load: async () => bindings,
    add: async () => [],
    remove: async () => ({ removed: [], all: [] }),
    watch: () => undefined,
    close: async () => undefined,
  };
  const lines: AuditEvent[] = [];
  const audit = new AuditLogger({ info: (fields) => void lines.push((fields as { audit: AuditEvent }).audit) });
  const config = {
    authenticationEnabled: enabled,
    security: { superUsers: ['User:root'], allowEveryoneIfNoAclFound: false },
  } as unknown as CohortConfig;
  const authorization = new AuthorizationService(config, store, audit);
  await authorization.onModuleInit();
  return { guard: new AclGuard(new Reflector(), authorization, audit), lines };
}

function context(
  handler: keyof Routes,
  principal: string,
  request: { params?: object; body?: unknown } = {},
): ExecutionContext {
  const http = { method: 'POST', route: { path: `/${handler}` }, ip: '10.0.0.1', principal, ...request };
  return {
    getType: () => 'http',
    getHandler: () => Routes.prototype[handler],
    getClass: () => Routes,
    switchToHttp: () => ({ getRequest: () => http }),
  } as unknown as ExecutionContext;
}

function refusedWith(run: () => unknown): number {
  try {
    run();
  } catch (error) {
    return (error as KafkaError).errorCode;
  }
  return ErrorCode.NONE;
}

describe('AclGuard', () => {
  it('refuses a route with no declaration to everyone but super users (fail-closed), with an audit line', async () => {
    const { guard: g, lines } = await guard([grant('User:a', 'ALL', 'CLUSTER', 'kafka-cluster')]);
    expect(refusedWith(() => g.canActivate(context('undeclared', 'User:a')))).toBe(
      ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
    );
    expect(lines).toEqual([
      expect.objectContaining({ principal: 'User:a', request: 'POST /undeclared', outcome: 'DENIED' }),
    ]);
    expect(g.canActivate(context('undeclared', 'User:root'))).toBe(true);
  });

  it('refuses a route whose declaration leaves a requirement without names, and checks the names a filtered route gives', async () => {
    const { guard: g } = await guard([grant('User:a', 'ALL', 'GROUP', '*')]);
    expect(refusedWith(() => g.canActivate(context('misdeclared', 'User:a', { params: { groupId: 'g' } })))).toBe(
      ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
    );
    expect(g.canActivate(context('misdeclared', 'User:root'))).toBe(true);
    expect(g.canActivate(context('readOffsets', 'User:a', { params: { groupId: 'g' } }))).toBe(true);
    expect(refusedWith(() => g.canActivate(context('readOffsets', 'User:b', { params: { groupId: 'g' } })))).toBe(
      ErrorCode.GROUP_AUTHORIZATION_FAILED,
    );
  });

  it('lets everything through while authorization is off, and public routes always', async () => {
    const { guard: off } = await guard([], false);
    expect(off.canActivate(context('undeclared', 'User:ANONYMOUS'))).toBe(true);
    const { guard: on } = await guard([]);
    expect(on.canActivate(context('open', 'User:ANONYMOUS'))).toBe(true);
    expect(on.canActivate(context('listGroups', 'User:ANONYMOUS'))).toBe(true);
  });

  it('checks the group named by the route, then every topic of the body, with their codes', async () => {
    const { guard: g } = await guard([
      grant('User:a', 'READ', 'GROUP', 'g'),
      grant('User:a', 'READ', 'TOPIC', 't1'),
      grant('User:a', 'DELETE', 'GROUP', 'g'),
    ]);
    expect(g.canActivate(context('deleteGroup', 'User:a', { params: { groupId: 'g' } }))).toBe(true);
    expect(refusedWith(() => g.canActivate(context('deleteGroup', 'User:a', { params: { groupId: 'h' } })))).toBe(
      ErrorCode.GROUP_AUTHORIZATION_FAILED,
    );
    const body = (names: unknown[]) => ({
      params: { groupId: 'g' },
      body: { topics: names.map((name) => ({ name })) },
    });
    expect(g.canActivate(context('setOffsets', 'User:a', body(['t1', 't1'])))).toBe(true);
    expect(refusedWith(() => g.canActivate(context('setOffsets', 'User:a', body(['t1', 't2']))))).toBe(
      ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    );
    expect(refusedWith(() => g.canActivate(context('setOffsets', 'User:b', body(['t1']))))).toBe(
      ErrorCode.GROUP_AUTHORIZATION_FAILED,
    );
  });

  it('creates a topic with CREATE CLUSTER, or with CREATE on that topic only', async () => {
    const { guard: g } = await guard([
      grant('User:ops', 'CREATE', 'CLUSTER', 'kafka-cluster'),
      grant('User:dev', 'CREATE', 'TOPIC', 'mine'),
    ]);
    expect(g.canActivate(context('createTopic', 'User:ops', { body: { name: 'anything' } }))).toBe(true);
    expect(g.canActivate(context('createTopic', 'User:dev', { body: { name: 'mine' } }))).toBe(true);
    expect(refusedWith(() => g.canActivate(context('createTopic', 'User:dev', { body: { name: 'theirs' } })))).toBe(
      ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    );
    expect(refusedWith(() => g.canActivate(context('cluster', 'User:dev')))).toBe(
      ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
    );
  });
});
