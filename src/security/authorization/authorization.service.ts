import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  type AclBinding,
  type AclBindingFilter,
  type AclOperation,
  type AclResourceType,
  CLUSTER_RESOURCE_NAME,
} from '@cohort/protocol';
import { Authorizer, canonicalHost, matchesFilter } from '@cohort/security';
import { CohortConfig } from '../../config/cohort-config';
import { AuditLogger } from '../audit-logger';
import { ACL_STORE, type AclStore } from './acl-store.port';

/** Who asks: the principal authentication found and the client address. */
export interface Caller {
  principal: string;
  host: string;
}

/**
 * The node's authorizer and its bindings. Checks are enforced only when authentication is configured
 * (`enabled`): without it every client is `User:ANONYMOUS`, no ACL could tell clients apart, and
 * protected mode guards the node instead, so every check passes and the existing behaviour stays.
 * The bindings are loaded at start and kept current from the store (another node's changes arrive
 * through it); `/v1/acls` reads and changes them in either case.
 */
@Injectable()
export class AuthorizationService implements OnModuleInit, OnModuleDestroy {
  readonly enabled: boolean;
  private readonly authorizer: Authorizer;
  /** Moves whenever the bindings change (`aclVersion`), so answers cached elsewhere are dropped. */
  private version = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    config: CohortConfig,
    @Inject(ACL_STORE) private readonly store: AclStore,
    private readonly audit: AuditLogger,
  ) {
    this.enabled = config.authenticationEnabled;
    this.authorizer = new Authorizer({
      superUsers: config.security.superUsers,
      allowEveryoneIfNoAclFound: config.security.allowEveryoneIfNoAclFound,
    });
  }

  async onModuleInit(): Promise<void> {
    this.setAcls(await this.store.load());
    this.store.watch((bindings) => this.setAcls(bindings));
  }

  async onModuleDestroy(): Promise<void> {
    await this.store.close();
  }

  /** Changes whenever the bindings do (here or, through the store, on another node). */
  get aclVersion(): number {
    return this.version;
  }

  isSuperUser(caller: Caller): boolean {
    return this.authorizer.isSuperUser(caller.principal);
  }

  /** A check whose denial is not logged (list filters, as Kafka's logIfDenied=false). */
  allows(caller: Caller, operation: AclOperation, resourceType: AclResourceType, resourceName: string): boolean {
    return (
      !this.enabled || this.authorizer.authorize(caller.principal, caller.host, operation, resourceType, resourceName)
    );
  }

  /** A check of `request` whose denial is one audit line. */
  check(
    caller: Caller,
    operation: AclOperation,
    resourceType: AclResourceType,
    resourceName: string,
    request: string,
  ): boolean {
    if (this.allows(caller, operation, resourceType, resourceName)) return true;
    this.audit.denied({ ...caller, operation, resourceType, resourceName, request });
    return false;
  }

  /**
   * The distinct names of `names` that `request` may not `operation`, its denials one audit line
   * naming them all (a DescribeGroups of 1,000 refused groups is one line, not 1,000).
   */
  refusedOf(
    caller: Caller,
    operation: AclOperation,
    resourceType: AclResourceType,
    names: Iterable<string>,
    request: string,
  ): Set<string> {
    const refused = new Set<string>();
    if (!this.enabled) return refused;
    for (const name of new Set(names))
      if (!this.authorizer.authorize(caller.principal, caller.host, operation, resourceType, name)) refused.add(name);
    this.audit.deniedMany({ ...caller, operation, resourceType, request }, [...refused]);
    return refused;
  }

  checkCluster(caller: Caller, operation: AclOperation, request: string): boolean {
    return this.check(caller, operation, 'CLUSTER', CLUSTER_RESOURCE_NAME, request);
  }

  /** The items the caller may see: DESCRIBE (or `operation`) on each one's resource; nothing is logged. */
  filter<T>(
    caller: Caller,
    operation: AclOperation,
    resourceType: AclResourceType,
    items: readonly T[],
    nameOf: (item: T) => string,
  ): T[] {
    if (!this.enabled) return [...items];
    return items.filter((item) => this.allows(caller, operation, resourceType, nameOf(item)));
  }

  /** ListGroups' rule: every group with DESCRIBE CLUSTER, else only those with DESCRIBE GROUP; never an error. */
  visibleGroups<T>(caller: Caller, groups: readonly T[], groupIdOf: (group: T) => string): T[] {
    if (this.allows(caller, 'DESCRIBE', 'CLUSTER', CLUSTER_RESOURCE_NAME)) return [...groups];
    return this.filter(caller, 'DESCRIBE', 'GROUP', groups, groupIdOf);
  }

  private setAcls(bindings: readonly AclBinding[]): void {
    this.authorizer.setAcls(bindings);
    this.version += 1;
    for (const listener of [...this.listeners]) listener();
  }

  /** Calls `listener` after each change of the bindings (here or from the store); returns what unsubscribes it. */
  onAclsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  list(filter: AclBindingFilter): AclBinding[] {
    return this.authorizer.acls().filter((binding) => matchesFilter(binding, filter));
  }

  /** Stores the bindings (validated by the caller) and enforces them here at once; one audit line per binding. */
  async create(caller: Caller, given: readonly AclBinding[]): Promise<AclBinding[]> {
    // Stored and listed with the host written one way (0:0:0:0:0:0:0:1 as ::1).
    const bindings = given.map((binding) => ({ ...binding, host: canonicalHost(binding.host) }));
    this.setAcls(await this.store.add(bindings));
    for (const binding of bindings) this.auditChange(caller, 'CreateAcls', binding);
    return [...bindings];
  }

  /** Removes every binding that matches one of the filters; one audit line per removed binding. */
  async delete(caller: Caller, filters: readonly AclBindingFilter[]): Promise<AclBinding[]> {
    // Matched against the stored set, not this node's copy, which may be a moment behind another node's change.
    const matching = (await this.store.load()).filter((binding) =>
      filters.some((filter) => matchesFilter(binding, filter)),
    );
    const { removed, all } = await this.store.remove(matching);
    this.setAcls(all);
    for (const binding of removed) this.auditChange(caller, 'DeleteAcls', binding);
    return removed;
  }

  private auditChange(caller: Caller, request: string, binding: AclBinding): void {
    const detail = `${binding.permission} ${binding.principal} ${binding.operation} on ${binding.resourceType}:${binding.patternType}:${binding.resourceName} from host ${binding.host}`;
    this.audit.changed({
      ...caller,
      operation: 'ALTER',
      resourceType: 'CLUSTER',
      resourceName: CLUSTER_RESOURCE_NAME,
      request,
      detail,
    });
  }
}
