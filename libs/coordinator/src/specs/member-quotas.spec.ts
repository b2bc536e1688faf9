import type { RequestContext } from '@cohort/coordinator/ports/group-coordinator.api';
import { DEFAULT_COORDINATOR_CONFIG } from '@cohort/coordinator/ports/coordinator-config';
import type { CoordinatorMetrics } from '@cohort/coordinator/ports/coordinator-metrics.port';
import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

const ALICE = 'User:alice';
const BOB = 'User:bob';

function as(h: CoordinatorHarness, principal: string | undefined, connectionId?: string): RequestContext {
  return { ...h.context(connectionId), principal };
}

/** A protocol list whose JSON is about `bytes` long. */
function protocolsOf(bytes: number): { name: string; metadata: unknown }[] {
  return [{ name: 'range', metadata: { topics: ['orders'], userData: 'x'.repeat(bytes) } }];
}

/**
 * What one principal can hold in a node's memory through membership (docs/security.md): members and
 * KIP-394 pending ids against MAX_MEMBERS_PER_PRINCIPAL, their protocols against
 * MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL, and pending ids that expire with their session or their connection.
 */
describe('per-principal membership limits', () => {
  const refusals: string[] = [];
  const expired: string[] = [];
  const metrics: CoordinatorMetrics = {
    onMemberQuotaRefused: (limit) => refusals.push(limit),
    onPendingMemberExpired: (reason) => expired.push(reason),
  };
  beforeEach(() => {
    refusals.length = 0;
    expired.length = 0;
  });

  it('a principal holding MAX_MEMBERS_PER_PRINCIPAL pending ids is answered THROTTLING_QUOTA_EXCEEDED, and another principal still joins', async () => {
    const h = new CoordinatorHarness({ config: { maxMembersPerPrincipal: 3 }, metrics });
    await h.settle();
    for (let i = 0; i < 3; i++) {
      const first = await h.coordinator.joinGroup(h.joinRequest(`g${i}`), as(h, ALICE));
      expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    }
    const refused = await h.coordinator.joinGroup(h.joinRequest('g9'), as(h, ALICE));
    expect(refused.errorCode).toBe(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
    expect(refused.errorMessage).toContain('MAX_MEMBERS_PER_PRINCIPAL=3');
    expect((await h.describe('g9')).groupState).toBe('Dead');
    expect(refusals).toEqual(['members']);
    const other = await h.coordinator.joinGroup(h.joinRequest('g9'), as(h, BOB));
    expect(other.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  });

  it('a pending id joining with its id takes no second slot, and a member that leaves gives its slot back', async () => {
    const h = new CoordinatorHarness({ config: { maxMembersPerPrincipal: 1 }, metrics });
    await h.settle();
    const context = as(h, ALICE);
    const { memberId, join } = await h.joinNew('g', {}, context);
    await h.advance(0);
    expect(join.value.errorCode).toBe(ErrorCode.NONE);
    const second = await h.coordinator.joinGroup(h.joinRequest('other'), as(h, ALICE));
    expect(second.errorCode).toBe(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
    const left = await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId }] }, context);
    expect(left.errorCode).toBe(ErrorCode.NONE);
    const third = await h.coordinator.joinGroup(h.joinRequest('other'), as(h, ALICE));
    expect(third.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  });

  it("a join whose protocols would pass MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL is refused and leaves the principal's members as they were", async () => {
    const h = new CoordinatorHarness({ config: { maxMemberMetadataBytesPerPrincipal: 10_000 }, metrics });
    await h.settle();
    const context = as(h, ALICE);
    const small = await h.joinNew('g', { protocols: protocolsOf(6_000) }, context);
    await h.advance(0);
    expect(small.join.value.errorCode).toBe(ErrorCode.NONE);
    // A second member of 6,000 bytes would hold 12,000: its pending id is handed out, its join with metadata refused.
    const first = await h.coordinator.joinGroup(h.joinRequest('h', { protocols: protocolsOf(6_000) }), context);
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const big = await h.coordinator.joinGroup(
      h.joinRequest('h', { memberId: first.memberId, protocols: protocolsOf(6_000) }),
      context,
    );
    expect(big.errorCode).toBe(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
    expect(big.errorMessage).toContain('MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL=10000');
    expect((await h.describe('h')).members).toHaveLength(0);
    expect(refusals).toEqual(['metadata-bytes']);
    // The member it has may shrink its metadata, and then the other one fits.
    const shrunk = h.join('g', small.memberId, { protocols: protocolsOf(100) }, context);
    await h.advance(0);
    expect(shrunk.value.errorCode).toBe(ErrorCode.NONE);
    const fits = h.join('h', first.memberId, { protocols: protocolsOf(6_000) }, context);
    await h.advance(0);
    expect(fits.value.errorCode).toBe(ErrorCode.NONE);
  });

  it('a caller without a principal (a super user) is not counted', async () => {
    const h = new CoordinatorHarness({ config: { maxMembersPerPrincipal: 1 } });
    await h.settle();
    for (let i = 0; i < 3; i++) {
      const first = await h.coordinator.joinGroup(h.joinRequest(`g${i}`), as(h, undefined));
      expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    }
  });

  it('pending ids expire at their session timeout and give their slots back', async () => {
    const h = new CoordinatorHarness({ config: { maxMembersPerPrincipal: 2 }, metrics });
    await h.settle();
    const connection = 'open-socket';
    const ids: string[] = [];
    for (let i = 0; i < 2; i++)
      ids.push((await h.coordinator.joinGroup(h.joinRequest('g'), as(h, ALICE, connection))).memberId);
    expect((await h.coordinator.joinGroup(h.joinRequest('g'), as(h, ALICE, connection))).errorCode).toBe(
      ErrorCode.THROTTLING_QUOTA_EXCEEDED,
    );
    await h.advance(10_000); // the session timeout of joinRequest
    expect(expired).toEqual(['session-timeout', 'session-timeout']);
    const late = await h.coordinator.joinGroup(h.joinRequest('g', { memberId: ids[0] }), as(h, ALICE, connection));
    expect(late.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await h.coordinator.joinGroup(h.joinRequest('g'), as(h, ALICE, connection))).errorCode).toBe(
      ErrorCode.MEMBER_ID_REQUIRED,
    );
  });

  it('a pending id whose connection closed is dropped at once when there is no disconnect grace, long before its session timeout', async () => {
    const h = new CoordinatorHarness({ config: { memberDisconnectGraceMs: 0 }, metrics });
    await h.settle();
    const first = await h.coordinator.joinGroup(
      h.joinRequest('g', { sessionTimeoutMs: 1_800_000 }),
      as(h, ALICE, 'closing'),
    );
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    h.coordinator.connectionClosed('closing');
    await h.settle();
    expect(expired).toEqual(['connection-closed']);
    expect((await h.describe('g')).groupState).toBe('Dead');
    const late = await h.coordinator.joinGroup(h.joinRequest('g', { memberId: first.memberId }), as(h, ALICE));
    expect(late.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a pending id whose connection closed lasts MEMBER_DISCONNECT_GRACE_MS, so a client that reconnects in time still joins with it', async () => {
    const h = new CoordinatorHarness({ config: { memberDisconnectGraceMs: 3000 }, metrics });
    await h.settle();
    const request = h.joinRequest('g', { sessionTimeoutMs: 1_800_000 });
    const kept = await h.coordinator.joinGroup(request, as(h, ALICE, 'a'));
    const lost = await h.coordinator.joinGroup(request, as(h, ALICE, 'b'));
    h.coordinator.connectionClosed('a');
    h.coordinator.connectionClosed('b');
    await h.advance(2000);
    const back = h.join('g', kept.memberId, { sessionTimeoutMs: 1_800_000 }, as(h, ALICE, 'a2'));
    await h.advance(1000);
    expect(expired).toEqual(['connection-closed']);
    await h.advance(0);
    expect(back.value.errorCode).toBe(ErrorCode.NONE);
    expect(back.value.memberId).toBe(kept.memberId);
    const late = await h.coordinator.joinGroup(
      h.joinRequest('g', { memberId: lost.memberId, sessionTimeoutMs: 1_800_000 }),
      as(h, ALICE, 'b2'),
    );
    expect(late.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a partition this node stops leading gives back what its members held', async () => {
    const h = new CoordinatorHarness({ config: { maxMembersPerPrincipal: 1 } });
    await h.settle();
    const first = await h.coordinator.joinGroup(h.joinRequest('g'), as(h, ALICE));
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    h.store.resign(h.partitionOf('g'));
    await h.settle();
    const elsewhere = await h.coordinator.joinGroup(h.joinRequest('another'), as(h, ALICE));
    expect(elsewhere.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  });

  it('GROUP_MAX_SIZE has a finite default', () => {
    expect(DEFAULT_COORDINATOR_CONFIG.groupMaxSize).toBe(10_000);
  });
});
