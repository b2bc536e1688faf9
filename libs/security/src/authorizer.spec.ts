import type { AclBinding, AclOperation, AclResourceType } from '@cohort/protocol';
import { Authorizer } from './authorizer';

const ALICE = 'User:alice';
const BOB = 'User:bob';
const HOST = '10.0.0.7';

function acl(
  partial: Partial<AclBinding> & Pick<AclBinding, 'resourceType' | 'resourceName' | 'operation'>,
): AclBinding {
  return { principal: ALICE, host: '*', patternType: 'LITERAL', permission: 'ALLOW', ...partial };
}

function authorizer(
  bindings: AclBinding[],
  options: { superUsers?: string[]; allowEveryoneIfNoAclFound?: boolean } = {},
): Authorizer {
  const result = new Authorizer({
    superUsers: options.superUsers ?? [],
    allowEveryoneIfNoAclFound: options.allowEveryoneIfNoAclFound ?? false,
  });
  result.setAcls(bindings);
  return result;
}

function can(
  a: Authorizer,
  operation: AclOperation,
  resourceType: AclResourceType,
  name: string,
  principal = ALICE,
  host = HOST,
): boolean {
  return a.authorize(principal, host, operation, resourceType, name);
}

/** Kafka's StandardAuthorizer rules, one by one (StandardAuthorizerTest names in brackets). */
describe('Authorizer', () => {
  it('denies by default when no binding matches the resource [testAllowEveryoneIfNoAclFoundConfigDisabled]', () => {
    expect(can(authorizer([]), 'READ', 'GROUP', 'g')).toBe(false);
  });

  it('allows everyone when no binding of anyone matches the resource and ALLOW_EVERYONE_IF_NO_ACL_FOUND is on [testAllowEveryoneIfNoAclFoundConfigEnabled]', () => {
    const a = authorizer([acl({ principal: BOB, resourceType: 'GROUP', resourceName: 'bobs', operation: 'READ' })], {
      allowEveryoneIfNoAclFound: true,
    });
    expect(can(a, 'READ', 'GROUP', 'free')).toBe(true);
    // A binding of another principal on the resource means the resource has ACLs: no default any more.
    expect(can(a, 'READ', 'GROUP', 'bobs')).toBe(false);
    expect(can(a, 'READ', 'GROUP', 'bobs', BOB)).toBe(true);
  });

  it('allows an operation an ALLOW binding names, only on its resource type and name', () => {
    const a = authorizer([acl({ resourceType: 'GROUP', resourceName: 'payments', operation: 'READ' })]);
    expect(can(a, 'READ', 'GROUP', 'payments')).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'payments2')).toBe(false);
    expect(can(a, 'READ', 'TOPIC', 'payments')).toBe(false);
    expect(can(a, 'DELETE', 'GROUP', 'payments')).toBe(false);
    expect(can(a, 'READ', 'GROUP', 'payments', BOB)).toBe(false);
  });

  it.each<AclOperation>(['READ', 'WRITE', 'DELETE', 'ALTER'])(
    'lets an ALLOW of %s imply DESCRIBE, and nothing else',
    (operation) => {
      const a = authorizer([acl({ resourceType: 'TOPIC', resourceName: 't', operation })]);
      expect(can(a, 'DESCRIBE', 'TOPIC', 't')).toBe(true);
      const others: AclOperation[] = ['READ', 'WRITE', 'DELETE', 'ALTER', 'CREATE'];
      for (const other of others.filter((o) => o !== operation)) expect(can(a, other, 'TOPIC', 't')).toBe(false);
    },
  );

  it('does not let CREATE or DESCRIBE imply anything', () => {
    const a = authorizer([
      acl({ resourceType: 'TOPIC', resourceName: 't', operation: 'CREATE' }),
      acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'DESCRIBE' }),
    ]);
    expect(can(a, 'DESCRIBE', 'TOPIC', 't')).toBe(false);
    expect(can(a, 'READ', 'GROUP', 'g')).toBe(false);
  });

  it('does not let a DENY of READ deny DESCRIBE (implication is for ALLOW only)', () => {
    const a = authorizer([
      acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'DESCRIBE' }),
      acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'READ', permission: 'DENY' }),
    ]);
    expect(can(a, 'DESCRIBE', 'GROUP', 'g')).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'g')).toBe(false);
  });

  it('lets ALL cover every operation, for ALLOW and for DENY [testDenyPrecedenceWithOperationAll]', () => {
    const allowAll = authorizer([acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'ALL' })]);
    for (const operation of ['READ', 'DESCRIBE', 'DELETE'] as const)
      expect(can(allowAll, operation, 'GROUP', 'g')).toBe(true);
    const denyAll = authorizer([
      acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'READ' }),
      acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'ALL', permission: 'DENY' }),
    ]);
    for (const operation of ['READ', 'DESCRIBE', 'DELETE'] as const)
      expect(can(denyAll, operation, 'GROUP', 'g')).toBe(false);
  });

  it('lets DENY win over any number of ALLOWs, literal, prefixed or wildcard [testDenyPrecedence]', () => {
    const allows = [
      acl({ resourceType: 'TOPIC', resourceName: 'orders', operation: 'READ' }),
      acl({ resourceType: 'TOPIC', resourceName: 'ord', patternType: 'PREFIXED', operation: 'ALL' }),
      acl({ resourceType: 'TOPIC', resourceName: '*', operation: 'READ' }),
      acl({ principal: 'User:*', resourceType: 'TOPIC', resourceName: 'orders', operation: 'READ' }),
    ];
    expect(can(authorizer(allows), 'READ', 'TOPIC', 'orders')).toBe(true);
    for (const deny of [
      acl({ resourceType: 'TOPIC', resourceName: 'orders', operation: 'READ', permission: 'DENY' }),
      acl({
        resourceType: 'TOPIC',
        resourceName: 'or',
        patternType: 'PREFIXED',
        operation: 'READ',
        permission: 'DENY',
      }),
      acl({ resourceType: 'TOPIC', resourceName: '*', operation: 'READ', permission: 'DENY' }),
      acl({ principal: 'User:*', resourceType: 'TOPIC', resourceName: 'orders', operation: 'ALL', permission: 'DENY' }),
    ]) {
      expect(can(authorizer([...allows, deny]), 'READ', 'TOPIC', 'orders')).toBe(false);
      expect(can(authorizer([deny, ...allows]), 'READ', 'TOPIC', 'orders')).toBe(false);
    }
  });

  it('matches PREFIXED bindings on names that start with the prefix, of any length [testPrefixAcls]', () => {
    const a = authorizer([
      acl({ resourceType: 'GROUP', resourceName: 'billing-', patternType: 'PREFIXED', operation: 'READ' }),
      acl({ resourceType: 'GROUP', resourceName: 'b', patternType: 'PREFIXED', operation: 'DESCRIBE' }),
      acl({ resourceType: 'GROUP', resourceName: 'billing-eu-', patternType: 'PREFIXED', operation: 'DELETE' }),
    ]);
    expect(can(a, 'READ', 'GROUP', 'billing-eu')).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'billing-')).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'billing')).toBe(false);
    expect(can(a, 'DESCRIBE', 'GROUP', 'b')).toBe(true);
    expect(can(a, 'DESCRIBE', 'GROUP', 'xb')).toBe(false);
    expect(can(a, 'DELETE', 'GROUP', 'billing-eu-1')).toBe(true);
    expect(can(a, 'DELETE', 'GROUP', 'billing-us-1')).toBe(false);
  });

  it('reads a LITERAL name as exact: a prefix pattern is not a literal one, and `*` in a longer name is just a character', () => {
    const a = authorizer([
      acl({ resourceType: 'TOPIC', resourceName: 'orders', operation: 'READ' }),
      acl({ resourceType: 'TOPIC', resourceName: 'o*', operation: 'READ' }),
    ]);
    expect(can(a, 'READ', 'TOPIC', 'orders-eu')).toBe(false);
    expect(can(a, 'READ', 'TOPIC', 'oranges')).toBe(false);
    expect(can(a, 'READ', 'TOPIC', 'o*')).toBe(true);
  });

  it('lets the LITERAL name `*` match every resource of its type', () => {
    const a = authorizer([acl({ resourceType: 'GROUP', resourceName: '*', operation: 'READ' })]);
    expect(can(a, 'READ', 'GROUP', 'anything')).toBe(true);
    expect(can(a, 'READ', 'TOPIC', 'anything')).toBe(false);
  });

  it('lets the principal User:* match every principal, anonymous included', () => {
    const a = authorizer([
      acl({ principal: 'User:*', resourceType: 'GROUP', resourceName: 'open', operation: 'READ' }),
    ]);
    expect(can(a, 'READ', 'GROUP', 'open', BOB)).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'open', 'User:ANONYMOUS')).toBe(true);
  });

  it('matches the principal exactly, case included (`User` is case-sensitive)', () => {
    const a = authorizer([acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'READ' })]);
    expect(can(a, 'READ', 'GROUP', 'g', 'User:Alice')).toBe(false);
    expect(can(a, 'READ', 'GROUP', 'g', 'user:alice')).toBe(false);
  });

  it('matches a binding host of `*` or exactly the client address [testHostAddressAclValidation]', () => {
    const a = authorizer([acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'READ', host: '10.0.0.7' })]);
    expect(can(a, 'READ', 'GROUP', 'g', ALICE, '10.0.0.7')).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'g', ALICE, '10.0.0.8')).toBe(false);
    const denyFromOne = authorizer([
      acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'READ' }),
      acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'READ', host: '10.0.0.8', permission: 'DENY' }),
    ]);
    expect(can(denyFromOne, 'READ', 'GROUP', 'g', ALICE, '10.0.0.7')).toBe(true);
    expect(can(denyFromOne, 'READ', 'GROUP', 'g', ALICE, '10.0.0.8')).toBe(false);
  });

  it('lets a super user pass every check, even a DENY, and only that principal', () => {
    const a = authorizer(
      [
        acl({
          principal: 'User:*',
          resourceType: 'CLUSTER',
          resourceName: 'kafka-cluster',
          operation: 'ALL',
          permission: 'DENY',
        }),
      ],
      { superUsers: ['User:admin', 'User:ops'] },
    );
    expect(can(a, 'ALTER', 'CLUSTER', 'kafka-cluster', 'User:ops')).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'whatever', 'User:admin')).toBe(true);
    expect(can(a, 'ALTER', 'CLUSTER', 'kafka-cluster', ALICE)).toBe(false);
    expect(a.isSuperUser('User:admin')).toBe(true);
    expect(a.isSuperUser(ALICE)).toBe(false);
  });

  it('forgets cached decisions when the bindings change', () => {
    const a = authorizer([]);
    expect(can(a, 'READ', 'GROUP', 'g')).toBe(false);
    a.setAcls([acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'READ' })]);
    expect(can(a, 'READ', 'GROUP', 'g')).toBe(true);
    a.setAcls([]);
    expect(can(a, 'READ', 'GROUP', 'g')).toBe(false);
  });

  it('decides per host when some binding names a host, even for a decision cached for another host', () => {
    const a = authorizer([acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'READ', host: '10.0.0.7' })]);
    expect(can(a, 'READ', 'GROUP', 'g', ALICE, '10.0.0.7')).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'g', ALICE, '10.0.0.9')).toBe(false);
  });

  it('keeps cached decisions apart whatever characters principals and names hold', () => {
    const a = authorizer(
      [
        acl({ resourceType: 'GROUP', resourceName: 'g', operation: 'READ' }),
        acl({ principal: 'User:x\u0000', resourceType: 'GROUP', resourceName: '\u0000g', operation: 'READ' }),
      ],
      { allowEveryoneIfNoAclFound: true },
    );
    expect(can(a, 'READ', 'GROUP', 'g')).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'g', 'User:alice READ GROUP')).toBe(false);
    expect(can(a, 'READ', 'GROUP', '\u0000g', 'User:x')).toBe(false);
    expect(can(a, 'READ', 'GROUP', '\u0000g', 'User:x\u0000')).toBe(true);
    expect(can(a, 'READ', 'GROUP', 'READ GROUP g')).toBe(true); // no binding on it: allowed everyone
  });

  it('stays correct when the decision cache overflows', () => {
    const a = new Authorizer({ superUsers: [], allowEveryoneIfNoAclFound: false, cacheSize: 4 });
    a.setAcls([acl({ resourceType: 'GROUP', resourceName: 'g-', patternType: 'PREFIXED', operation: 'READ' })]);
    for (let i = 0; i < 50; i++) {
      expect(can(a, 'READ', 'GROUP', `g-${i}`)).toBe(true);
      expect(can(a, 'READ', 'GROUP', `h-${i}`)).toBe(false);
    }
  });

  it('decides the same as a scan of every binding, for random bindings and requests', () => {
    // A reference model: the rules above written as a plain scan, against the indexed authorizer.
    const names = ['a', 'ab', 'abc', 'b', '*'];
    const principals = [ALICE, BOB, 'User:*'];
    const operations: AclOperation[] = ['READ', 'WRITE', 'DELETE', 'ALTER', 'DESCRIBE', 'ALL'];
    let seed = 7;
    const pick = <T>(values: readonly T[]): T => values[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % values.length];
    for (let round = 0; round < 100; round++) {
      const bindings = Array.from({ length: 1 + (round % 6) }, () => {
        const patternType = pick(['LITERAL', 'PREFIXED'] as const);
        const resourceName = patternType === 'PREFIXED' ? pick(names.slice(0, 4)) : pick(names);
        return acl({
          principal: pick(principals),
          resourceType: 'TOPIC',
          resourceName,
          patternType,
          operation: pick(operations),
          permission: pick(['ALLOW', 'DENY'] as const),
        });
      });
      const everyone = round % 2 === 0;
      const a = authorizer(bindings, { allowEveryoneIfNoAclFound: everyone });
      for (const name of ['a', 'ab', 'abc', 'abcd', 'b', 'c']) {
        for (const operation of operations.filter((o) => o !== 'ALL')) {
          for (const principal of [ALICE, BOB]) {
            expect({
              bindings,
              name,
              operation,
              principal,
              allowed: can(a, operation, 'TOPIC', name, principal),
            }).toEqual({
              bindings,
              name,
              operation,
              principal,
              allowed: referenceDecision(bindings, principal, operation, name, everyone),
            });
          }
        }
      }
    }
  });
});

function referenceDecision(
  bindings: AclBinding[],
  principal: string,
  operation: AclOperation,
  name: string,
  everyone: boolean,
): boolean {
  const onResource = bindings.filter((b) =>
    b.patternType === 'PREFIXED' ? name.startsWith(b.resourceName) : b.resourceName === name || b.resourceName === '*',
  );
  const mine = onResource.filter((b) => b.principal === principal || b.principal === 'User:*');
  if (mine.some((b) => b.permission === 'DENY' && (b.operation === operation || b.operation === 'ALL'))) return false;
  const implied = operation === 'DESCRIBE' ? ['READ', 'WRITE', 'DELETE', 'ALTER'] : [];
  if (
    mine.some(
      (b) =>
        b.permission === 'ALLOW' &&
        (b.operation === operation || b.operation === 'ALL' || implied.includes(b.operation)),
    )
  )
    return true;
  return onResource.length === 0 && everyone;
}
