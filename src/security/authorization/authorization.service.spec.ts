import type { AclBinding } from '@cohort/protocol';
import type { CohortConfig } from '../../config/cohort-config';
import { AuditLogger, type AuditEvent } from '../audit-logger';
import type { AclStore } from './acl-store.port';
import { AuthorizationService } from './authorization.service';

const DENY_ALL: AclBinding = {
  principal: 'User:*',
  host: '*',
  resourceType: 'GROUP',
  resourceName: '*',
  patternType: 'LITERAL',
  operation: 'ALL',
  permission: 'DENY',
};
const READ_G: AclBinding = {
  principal: 'User:a',
  host: '*',
  resourceType: 'GROUP',
  resourceName: 'g',
  patternType: 'LITERAL',
  operation: 'READ',
  permission: 'ALLOW',
};
const CALLER = { principal: 'User:a', host: '10.0.0.1' };

/** A store in memory that can also announce a change made "on another node". */
class MemoryStore implements AclStore {
  bindings: AclBinding[] = [];
  listener: ((bindings: AclBinding[]) => void) | null = null;
  async load() {
    return [...this.bindings];
  }
  async add(bindings: readonly AclBinding[]) {
    this.bindings.push(...bindings);
    return [...this.bindings];
  }
  async remove(bindings: readonly AclBinding[]) {
    const removed = this.bindings.filter((b) => bindings.includes(b));
    this.bindings = this.bindings.filter((b) => !bindings.includes(b));
    return { removed, all: [...this.bindings] };
  }
  watch(listener: (bindings: AclBinding[]) => void) {
    this.listener = listener;
  }
  async close() {}
}

async function service(authenticationEnabled: boolean, store = new MemoryStore()) {
  const lines: AuditEvent[] = [];
  const audit = new AuditLogger({ info: (fields) => void lines.push((fields as { audit: AuditEvent }).audit) });
  const config = {
    authenticationEnabled,
    security: { superUsers: ['User:root'], allowEveryoneIfNoAclFound: false },
  } as unknown as CohortConfig;
  const result = new AuthorizationService(config, store, audit);
  await result.onModuleInit();
  return { authorization: result, lines, store };
}

describe('AuthorizationService', () => {
  it('allows everything without authentication, whatever the ACLs say, and still keeps and lists them', async () => {
    const store = new MemoryStore();
    store.bindings.push(DENY_ALL);
    const { authorization, lines } = await service(false, store);
    expect(authorization.enabled).toBe(false);
    expect(authorization.check(CALLER, 'READ', 'GROUP', 'g', 'JoinGroup')).toBe(true);
    expect(authorization.visibleGroups(CALLER, ['g', 'h'], (g) => g)).toEqual(['g', 'h']);
    expect(authorization.list({})).toEqual([DENY_ALL]);
    expect(lines).toEqual([]);
  });

  it('enforces the stored bindings with authentication on, and audits a denial once', async () => {
    const store = new MemoryStore();
    store.bindings.push(READ_G);
    const { authorization, lines } = await service(true, store);
    expect(authorization.check(CALLER, 'READ', 'GROUP', 'g', 'JoinGroup')).toBe(true);
    expect(authorization.check(CALLER, 'DELETE', 'GROUP', 'g', 'DeleteGroups')).toBe(false);
    expect(lines).toEqual([
      {
        ...CALLER,
        operation: 'DELETE',
        resourceType: 'GROUP',
        resourceName: 'g',
        request: 'DeleteGroups',
        outcome: 'DENIED',
      },
    ]);
    expect(authorization.check({ principal: 'User:root', host: '' }, 'DELETE', 'GROUP', 'g', 'DeleteGroups')).toBe(
      true,
    );
  });

  it('applies a change made elsewhere as soon as the store reports it', async () => {
    const { authorization, store } = await service(true);
    expect(authorization.allows(CALLER, 'READ', 'GROUP', 'g')).toBe(false);
    store.listener?.([READ_G]);
    expect(authorization.allows(CALLER, 'READ', 'GROUP', 'g')).toBe(true);
  });

  it('tells its listeners of every change, made here or elsewhere, until they unsubscribe (regex members move at once)', async () => {
    const { authorization, store } = await service(true);
    let told = 0;
    const unsubscribe = authorization.onAclsChanged(() => {
      told += 1;
      // Told after the change is enforced: a listener that asks sees the new bindings.
      expect(authorization.allows(CALLER, 'READ', 'GROUP', 'g')).toBe(true);
    });
    await authorization.create(CALLER, [READ_G]);
    expect(told).toBe(1);
    store.listener!([READ_G]);
    expect(told).toBe(2);
    unsubscribe();
    store.listener!([READ_G]);
    expect(told).toBe(2);
  });

  it('creates and deletes by filter, enforcing at once and auditing each binding', async () => {
    const { authorization, lines } = await service(true);
    await authorization.create(CALLER, [READ_G]);
    expect(authorization.allows(CALLER, 'READ', 'GROUP', 'g')).toBe(true);
    expect(await authorization.delete(CALLER, [{ principal: 'User:a', operation: 'READ' }])).toEqual([READ_G]);
    expect(authorization.allows(CALLER, 'READ', 'GROUP', 'g')).toBe(false);
    expect(lines.map((l) => [l.request, l.outcome, l.detail])).toEqual([
      ['CreateAcls', 'SUCCEEDED', 'ALLOW User:a READ on GROUP:LITERAL:g from host *'],
      ['DeleteAcls', 'SUCCEEDED', 'ALLOW User:a READ on GROUP:LITERAL:g from host *'],
    ]);
  });
});
