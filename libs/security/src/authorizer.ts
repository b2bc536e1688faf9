import { type AclBinding, type AclOperation, type AclResourceType, WILDCARD_PRINCIPAL } from '@cohort/protocol';
import { AclIndex, type ResourceSection } from './acl-index';
import { IMPLIES_DESCRIBE } from './operations';

export interface AuthorizerOptions {
  /** Principals that pass every check (Kafka's `super.users`). */
  superUsers: Iterable<string>;
  /** Kafka's `allow.everyone.if.no.acl.found`: allow when no binding of anyone matches the resource. */
  allowEveryoneIfNoAclFound: boolean;
  /** Decisions remembered between ACL changes; the cache is emptied when it reaches this size. */
  cacheSize?: number;
}

const enum Verdict {
  NONE,
  ALLOW,
  DENY,
}

const DEFAULT_CACHE_SIZE = 100_000;

/**
 * Kafka's StandardAuthorizer decision over a set of bindings, as pure code:
 * 1. a super user is allowed;
 * 2. the bindings matching the resource (literal name, prefixes, then LITERAL `*`) are scanned: a
 *    matching DENY decides at once (DENY wins), a matching ALLOW is remembered;
 * 3. allowed if an ALLOW matched; otherwise, if no binding of any principal matched the resource,
 *    `allowEveryoneIfNoAclFound` decides; otherwise denied.
 * A binding matches the caller when its principal is the caller's or `User:*` and its host is `*`
 * or the caller's address; its operation when it is the one asked, `ALL`, or (ALLOW only) one that
 * implies DESCRIBE. Decisions are cached until the bindings change, so a hot-path check is one map
 * lookup.
 */
export class Authorizer {
  private readonly superUsers: ReadonlySet<string>;
  private readonly allowEveryoneIfNoAclFound: boolean;
  private readonly cacheSize: number;
  private index = new AclIndex([]);
  private bindings: readonly AclBinding[] = [];
  /**
   * Decisions by caller (principal, and address when some binding names a host), then by
   * `operation type name`. The name comes last in the inner key and the other parts are fixed words,
   * so no principal or resource name, whatever it contains, can stand for another.
   */
  private readonly cache = new Map<string, Map<string, boolean>>();
  private cached = 0;

  constructor(options: AuthorizerOptions) {
    this.superUsers = new Set(options.superUsers);
    this.allowEveryoneIfNoAclFound = options.allowEveryoneIfNoAclFound;
    this.cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  }

  /** Replaces every binding (a load or a change seen from the store); forgets cached decisions. */
  setAcls(bindings: readonly AclBinding[]): void {
    this.bindings = [...bindings];
    this.index = new AclIndex(this.bindings);
    this.cache.clear();
    this.cached = 0;
  }

  acls(): readonly AclBinding[] {
    return this.bindings;
  }

  isSuperUser(principal: string): boolean {
    return this.superUsers.has(principal);
  }

  authorize(principal: string, host: string, operation: AclOperation, resourceType: AclResourceType, resourceName: string): boolean {
    if (this.superUsers.has(principal)) return true;
    const callerKey = this.index.hostSensitive ? `${host} ${principal}` : principal;
    const key = `${operation} ${resourceType} ${resourceName}`;
    let decisions = this.cache.get(callerKey);
    const cached = decisions?.get(key);
    if (cached !== undefined) return cached;
    const allowed = this.decide(principal, host, operation, this.index.sections[resourceType], resourceName);
    if (this.cached >= this.cacheSize) {
      this.cache.clear();
      this.cached = 0;
      decisions = undefined;
    }
    if (!decisions) this.cache.set(callerKey, (decisions = new Map()));
    decisions.set(key, allowed);
    this.cached++;
    return allowed;
  }

  private decide(principal: string, host: string, operation: AclOperation, section: ResourceSection, name: string): boolean {
    let found = false;
    let allowed = false;
    const scan = (bindings: readonly AclBinding[] | undefined): boolean => {
      if (!bindings) return false;
      for (const binding of bindings) {
        found = true;
        const verdict = verdictOf(binding, principal, host, operation);
        if (verdict === Verdict.DENY) return true;
        if (verdict === Verdict.ALLOW) allowed = true;
      }
      return false;
    };
    if (scan(section.literal.get(name))) return false;
    for (const length of section.prefixLengths) {
      if (length > name.length) break;
      if (scan(section.prefixed.get(name.slice(0, length)))) return false;
    }
    if (scan(section.wildcard)) return false;
    if (allowed) return true;
    return found ? false : this.allowEveryoneIfNoAclFound;
  }
}

function verdictOf(binding: AclBinding, principal: string, host: string, operation: AclOperation): Verdict {
  if (binding.principal !== principal && binding.principal !== WILDCARD_PRINCIPAL) return Verdict.NONE;
  if (binding.host !== '*' && binding.host !== host) return Verdict.NONE;
  if (binding.permission === 'DENY') {
    return binding.operation === operation || binding.operation === 'ALL' ? Verdict.DENY : Verdict.NONE;
  }
  if (binding.operation === operation || binding.operation === 'ALL') return Verdict.ALLOW;
  return operation === 'DESCRIBE' && IMPLIES_DESCRIBE.has(binding.operation) ? Verdict.ALLOW : Verdict.NONE;
}
