import { type AclBinding, type AclOperation, type AclResourceType, CLUSTER_RESOURCE_NAME } from '@cohort/protocol';
import { Authorizer } from './authorizer';
import { AUTHORIZATION_ERRORS, REQUEST_ACLS, type RequestName } from './request-acls';

/**
 * The per-request table of docs/security.md, as data written independently of REQUEST_ACLS:
 * what each request needs and the code it fails with. Walked for every request × {allowed with its
 * minimal ACLs, denied for a missing ACL, denied by a DENY, a super user with no ACLs}.
 */
type Need = { resourceType: AclResourceType; operation: AclOperation; errorCode: number };
const TABLE: { request: RequestName; needs: Need[]; widerGrant?: Need }[] = [
  { request: 'FindCoordinator', needs: [{ resourceType: 'GROUP', operation: 'DESCRIBE', errorCode: 30 }] },
  { request: 'JoinGroup', needs: [{ resourceType: 'GROUP', operation: 'READ', errorCode: 30 }] },
  { request: 'SyncGroup', needs: [{ resourceType: 'GROUP', operation: 'READ', errorCode: 30 }] },
  { request: 'Heartbeat', needs: [{ resourceType: 'GROUP', operation: 'READ', errorCode: 30 }] },
  { request: 'LeaveGroup', needs: [{ resourceType: 'GROUP', operation: 'READ', errorCode: 30 }] },
  {
    request: 'OffsetCommit',
    needs: [
      { resourceType: 'GROUP', operation: 'READ', errorCode: 30 },
      { resourceType: 'TOPIC', operation: 'READ', errorCode: 29 },
    ],
  },
  {
    request: 'OffsetFetch',
    needs: [
      { resourceType: 'GROUP', operation: 'DESCRIBE', errorCode: 30 },
      { resourceType: 'TOPIC', operation: 'DESCRIBE', errorCode: 29 },
    ],
  },
  {
    request: 'OffsetDelete',
    needs: [
      { resourceType: 'GROUP', operation: 'DELETE', errorCode: 30 },
      { resourceType: 'TOPIC', operation: 'READ', errorCode: 29 },
    ],
  },
  { request: 'DescribeGroups', needs: [{ resourceType: 'GROUP', operation: 'DESCRIBE', errorCode: 30 }] },
  {
    request: 'ListGroups',
    needs: [{ resourceType: 'GROUP', operation: 'DESCRIBE', errorCode: 30 }],
    widerGrant: { resourceType: 'CLUSTER', operation: 'DESCRIBE', errorCode: 31 },
  },
  { request: 'DeleteGroups', needs: [{ resourceType: 'GROUP', operation: 'DELETE', errorCode: 30 }] },
  {
    request: 'ConsumerGroupHeartbeat',
    needs: [
      { resourceType: 'GROUP', operation: 'READ', errorCode: 30 },
      { resourceType: 'TOPIC', operation: 'DESCRIBE', errorCode: 29 },
    ],
  },
  {
    request: 'ConsumerGroupDescribe',
    needs: [
      { resourceType: 'GROUP', operation: 'DESCRIBE', errorCode: 30 },
      { resourceType: 'TOPIC', operation: 'DESCRIBE', errorCode: 29 },
    ],
  },
  {
    request: 'ShareAcquire',
    needs: [
      { resourceType: 'GROUP', operation: 'READ', errorCode: 30 },
      { resourceType: 'TOPIC', operation: 'READ', errorCode: 29 },
    ],
  },
  {
    request: 'ShareAcknowledge',
    needs: [
      { resourceType: 'GROUP', operation: 'READ', errorCode: 30 },
      { resourceType: 'TOPIC', operation: 'READ', errorCode: 29 },
    ],
  },
  {
    request: 'ShareGroupHeartbeat',
    needs: [
      { resourceType: 'GROUP', operation: 'READ', errorCode: 30 },
      { resourceType: 'TOPIC', operation: 'DESCRIBE', errorCode: 29 },
    ],
  },
  {
    request: 'ShareGroupDescribe',
    needs: [
      { resourceType: 'GROUP', operation: 'DESCRIBE', errorCode: 30 },
      { resourceType: 'TOPIC', operation: 'DESCRIBE', errorCode: 29 },
    ],
  },
  { request: 'Metadata', needs: [{ resourceType: 'TOPIC', operation: 'DESCRIBE', errorCode: 29 }] },
  {
    request: 'CreateTopic',
    needs: [{ resourceType: 'TOPIC', operation: 'CREATE', errorCode: 29 }],
    widerGrant: { resourceType: 'CLUSTER', operation: 'CREATE', errorCode: 31 },
  },
  { request: 'AlterTopic', needs: [{ resourceType: 'TOPIC', operation: 'ALTER', errorCode: 29 }] },
  { request: 'ReportEndOffsets', needs: [{ resourceType: 'TOPIC', operation: 'WRITE', errorCode: 29 }] },
  { request: 'DescribeCluster', needs: [{ resourceType: 'CLUSTER', operation: 'DESCRIBE', errorCode: 31 }] },
  { request: 'DescribeAcls', needs: [{ resourceType: 'CLUSTER', operation: 'DESCRIBE', errorCode: 31 }] },
  { request: 'AlterAcls', needs: [{ resourceType: 'CLUSTER', operation: 'ALTER', errorCode: 31 }] },
];

const CLIENT = 'User:client';
const OTHER = 'User:other';
const ADMIN = 'User:admin';
const HOST = '192.0.2.10';
const NAMES: Record<AclResourceType, string> = { GROUP: 'payments', TOPIC: 'orders', CLUSTER: CLUSTER_RESOURCE_NAME };

function grant(need: Need, principal = CLIENT, permission: AclBinding['permission'] = 'ALLOW'): AclBinding {
  return {
    principal,
    host: '*',
    resourceType: need.resourceType,
    resourceName: NAMES[need.resourceType],
    patternType: 'LITERAL',
    operation: need.operation,
    permission,
  };
}

/** The first need the client fails, as the edge would answer it; 0 when every check passes. */
function answer(bindings: AclBinding[], row: (typeof TABLE)[number], principal = CLIENT): number {
  const authorizer = new Authorizer({ superUsers: [ADMIN], allowEveryoneIfNoAclFound: false });
  authorizer.setAcls(bindings);
  const check = (need: Need) =>
    authorizer.authorize(principal, HOST, need.operation, need.resourceType, NAMES[need.resourceType]);
  if (row.widerGrant && check(row.widerGrant)) return 0;
  const failed = row.needs.find((need) => !check(need));
  return failed ? AUTHORIZATION_ERRORS[failed.resourceType] : 0;
}

describe('the per-request ACL table', () => {
  it('is what the edges check: every request, its operations and resources', () => {
    const expected = Object.fromEntries(
      TABLE.map((row) => [
        row.request,
        Object.fromEntries(
          [...row.needs, ...(row.widerGrant ? [row.widerGrant] : [])].map((need) => [
            need.resourceType.toLowerCase(),
            need.operation,
          ]),
        ),
      ]),
    );
    expect(REQUEST_ACLS).toEqual(expected);
  });

  describe.each(TABLE)('$request', (row) => {
    const minimal = row.needs.map((need) => grant(need));
    // Someone else's binding on each resource: the resource has ACLs, so no default applies.
    const others = row.needs.map((need) => grant(need, OTHER));

    it('is allowed with its minimal ACLs', () => {
      expect(answer(minimal, row)).toBe(0);
    });

    it.each(row.needs.map((need, index) => ({ need, index })))(
      'is denied with $need.errorCode without $need.operation $need.resourceType',
      ({ need, index }) => {
        const missingOne = [...minimal.filter((_, i) => i !== index), ...others];
        expect(answer(missingOne, row)).toBe(need.errorCode);
      },
    );

    it.each(row.needs.map((need) => ({ need })))(
      'is denied with $need.errorCode by a DENY of $need.operation $need.resourceType',
      ({ need }) => {
        expect(answer([...minimal, grant(need, CLIENT, 'DENY')], row)).toBe(need.errorCode);
        expect(answer([...minimal, grant(need, 'User:*', 'DENY')], row)).toBe(need.errorCode);
      },
    );

    it('is allowed for a super user with no ACLs at all, and for nobody else', () => {
      expect(answer([], row, ADMIN)).toBe(0);
      expect(answer([], row)).toBe(row.needs[0].errorCode);
    });

    if (row.widerGrant) {
      const wider = row.widerGrant;
      it(`is allowed by ${wider.operation} ${wider.resourceType} alone`, () => {
        expect(answer([grant(wider)], row)).toBe(0);
      });
    }
  });
});
