import { type AclBinding, type AclOperation, type AclResourceType, WILDCARD_PRINCIPAL } from '@cohort/protocol';
import { canonicalHost } from './host-address';
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

/** What one binding says of a request. */
const NONE = 0;
const ALLOW = 1;
const DENY = 2;
/** What a scan of one list found: FOUND (some binding on the resource), ALLOWED (one allows the caller), or DENIED. */
const FOUND = 1;
const ALLOWED = 2;
const DENIED = -1;

/** A small slot per (operation, resource type), so the cache needs no concatenated key. */
const OPERATION_SLOT: Readonly<Record<AclOperation, number>> = {
  ALL: 0,
  READ: 1,
  WRITE: 2,
  CREATE: 3,
  DELETE: 4,
  ALTER: 5,
  DESCRIBE: 6,
  CLUSTER_ACTION: 7,
};
const TYPE_SLOT: Readonly<Record<AclResourceType, number>> = { GROUP: 0, TOPIC: 1, CLUSTER: 2 };

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
   * Decisions by caller (principal, and address when some binding names a host), then by slot of
   * (operation, resource type), then by resource name: no key is built from untrusted parts, so no
   * principal or name can stand for another, and a hot-path check hashes no new string.
   */
  private readonly cache = new Map<string, (Map<string, boolean> | undefined)[]>();
  private cached = 0;

  constructor(options: AuthorizerOptions) {
    this.superUsers = new Set(options.superUsers);
    this.allowEveryoneIfNoAclFound = options.allowEveryoneIfNoAclFound;
    this.cacheSize = options.cacheSize ?? DEFAULT_CACHE_SIZE;
  }

  /** Replaces every binding (a load or a change seen from the store); forgets cached decisions. */
  setAcls(bindings: readonly AclBinding[]): void {
    this.bindings = [...bindings];
    // Hosts compared as addresses: a binding for 0:0:0:0:0:0:0:1 is one for ::1 (canonicalHost).
    this.index = new AclIndex(
      this.bindings.map((binding) =>
        binding.host === '*' ? binding : { ...binding, host: canonicalHost(binding.host) },
      ),
    );
    this.cache.clear();
    this.cached = 0;
  }

  acls(): readonly AclBinding[] {
    return this.bindings;
  }

  isSuperUser(principal: string): boolean {
    return this.superUsers.has(principal);
  }

  authorize(
    principal: string,
    host: string,
    operation: AclOperation,
    resourceType: AclResourceType,
    resourceName: string,
  ): boolean {
    if (this.superUsers.has(principal)) return true;
    if (this.index.hostSensitive) host = canonicalHost(host);
    const callerKey = this.index.hostSensitive ? `${host} ${principal}` : principal;
    const slot = OPERATION_SLOT[operation] * 3 + TYPE_SLOT[resourceType];
    let slots = this.cache.get(callerKey);
    const cached = slots?.[slot]?.get(resourceName);
    if (cached !== undefined) return cached;
    const allowed = this.decide(principal, host, operation, this.index.sections[resourceType], resourceName);
    if (this.cached >= this.cacheSize) {
      this.cache.clear();
      this.cached = 0;
      slots = undefined;
    }
    if (!slots) this.cache.set(callerKey, (slots = []));
    (slots[slot] ??= new Map()).set(resourceName, allowed);
    this.cached++;
    return allowed;
  }

  private decide(
    principal: string,
    host: string,
    operation: AclOperation,
    section: ResourceSection,
    name: string,
  ): boolean {
    let flags = 0;
    const literal = section.literal.get(name);
    if (literal) {
      const found = scan(literal, principal, host, operation);
      if (found === DENIED) return false;
      flags |= found;
    }
    for (const length of section.prefixLengths) {
      if (length > name.length) break;
      const prefixed = section.prefixed.get(name.slice(0, length));
      if (!prefixed) continue;
      const found = scan(prefixed, principal, host, operation);
      if (found === DENIED) return false;
      flags |= found;
    }
    if (section.wildcard.length > 0) {
      const found = scan(section.wildcard, principal, host, operation);
      if (found === DENIED) return false;
      flags |= found;
    }
    if (flags & ALLOWED) return true;
    return flags & FOUND ? false : this.allowEveryoneIfNoAclFound;
  }
}

/** DENIED at the first binding that denies the caller; otherwise FOUND, with ALLOWED if one allows it. */
function scan(bindings: readonly AclBinding[], principal: string, host: string, operation: AclOperation): number {
  let flags = FOUND;
  for (const binding of bindings) {
    const verdict = verdictOf(binding, principal, host, operation);
    if (verdict === DENY) return DENIED;
    if (verdict === ALLOW) flags |= ALLOWED;
  }
  return flags;
}

function verdictOf(binding: AclBinding, principal: string, host: string, operation: AclOperation): number {
  if (binding.principal !== principal && binding.principal !== WILDCARD_PRINCIPAL) return NONE;
  if (binding.host !== '*' && binding.host !== host) return NONE;
  if (binding.permission === 'DENY') {
    return binding.operation === operation || binding.operation === 'ALL' ? DENY : NONE;
  }
  if (binding.operation === operation || binding.operation === 'ALL') return ALLOW;
  return operation === 'DESCRIBE' && IMPLIES_DESCRIBE.has(binding.operation) ? ALLOW : NONE;
}
