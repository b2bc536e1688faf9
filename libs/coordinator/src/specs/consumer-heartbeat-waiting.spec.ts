import { CoordinatorHarness, CountingUniformAssignor, joinOrders } from '@cohort/coordinator/testing';

// Kafka runs a timer that expires as one more event behind the requests already received, and
// SPEC (MEMBER_DISCONNECT_GRACE_MS): a dynamic member whose socket closes is removed after the grace
// unless a request of that member arrives on a new connection first. After a long pause of the node its
// sockets close (the ping timeout fires before their pongs are read) while each member, whose request
// timed out, reconnects and sends its join again; those requests arrive within the grace but wait for
// the heartbeats under way before them. A member whose request has arrived is back: fencing it bumped the
// group epoch, and its waiting join then came in as a new member and bumped it again, each bump one more
// computation of the whole group's target (a group of 10,000 then took thousands and did not converge).
describe('a consumer group member whose heartbeat arrived and waits for its turn', () => {
  const GRACE = 3_000;
  const N = 10;
  let h: CoordinatorHarness;
  let assignor: CountingUniformAssignor;
  const on = (connectionId: string) => ({ clientId: 'client', clientHost: '/127.0.0.1', connectionId });
  const ids = Array.from({ length: N }, (_, i) => `member-${i}`);

  beforeEach(async () => {
    assignor = new CountingUniformAssignor();
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 2 * N }],
      consumerAssignors: [assignor],
      config: { memberDisconnectGraceMs: GRACE },
    });
    await h.settle();
  });

  const describeGroup = async () => (await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0];

  /**
   * Every member's join again, on the connection `connectionOf` names: they arrive now and are queued for
   * the end of this turn (still busy with the heartbeats before them), and 1 ms passes before they run.
   */
  const rejoinAsTheDeadlinePasses = async (connectionOf: (id: string) => string) => {
    const answers = ids.map((id) => h.coordinator.consumerGroupHeartbeat(joinOrders(id), on(connectionOf(id))));
    h.clock.advance(1);
    const responses = await Promise.all(answers);
    await h.settle();
    return responses;
  };

  it('keeps its membership and the group epoch: its identical join, arrived within the grace, is not a new member', async () => {
    await Promise.all(ids.map((id) => h.coordinator.consumerGroupHeartbeat(joinOrders(id), on(`old-${id}`))));
    const formed = await describeGroup();
    expect(formed.members).toHaveLength(N);
    const runs = assignor.runs;

    for (const id of ids) h.coordinator.connectionClosed(`old-${id}`);
    await h.advance(GRACE - 1);
    // Each joins again on its new connection, and the grace ends before those joins run.
    const responses = await rejoinAsTheDeadlinePasses((id) => `new-${id}`);

    expect(responses.map((r) => r.errorCode)).toEqual(ids.map(() => 0));
    const after = await describeGroup();
    expect(after.members.map((m) => m.memberId).sort()).toEqual([...ids].sort());
    expect(after.groupEpoch).toBe(formed.groupEpoch);
    expect(assignor.runs).toBe(runs);
    // Later pushes go to the connection each member came back on.
    for (const id of ids) expect(h.shardOf('cg').consumerConnections.connectionOf('cg', id)).toBe(`new-${id}`);
  });

  it('keeps its membership and the group epoch when its session ends while its heartbeat waits for its turn (Kafka runs the expiry behind it)', async () => {
    await Promise.all(ids.map((id) => h.coordinator.consumerGroupHeartbeat(joinOrders(id), on(`conn-${id}`))));
    const formed = await describeGroup();
    const runs = assignor.runs;
    const session = h.config.groupConsumerSessionTimeoutMs;

    await h.advance(session - 1);
    // Each member joins again (its answer was lost), and its session ends before that join runs.
    const responses = await rejoinAsTheDeadlinePasses((id) => `conn-${id}`);

    expect(responses.map((r) => r.errorCode)).toEqual(ids.map(() => 0));
    const after = await describeGroup();
    expect(after.members).toHaveLength(N);
    expect(after.groupEpoch).toBe(formed.groupEpoch);
    expect(assignor.runs).toBe(runs);
    // The heartbeat restarted each session: nothing of it is fenced a session later either...
    await h.advance(session - 1);
    expect((await describeGroup()).members).toHaveLength(N);
    // ...and a member that then stays silent is fenced as ever.
    await h.advance(1);
    expect((await describeGroup()).members).toHaveLength(0);
  });

  it('is not kept by a stale request on a new connection: a fenced epoch neither moves its pushes nor ends the grace', async () => {
    const joined = await h.coordinator.consumerGroupHeartbeat(joinOrders('member-a'), on('conn-a'));
    h.coordinator.connectionClosed('conn-a');
    const stale = await h.coordinator.consumerGroupHeartbeat(
      { groupId: 'cg', memberId: 'member-a', memberEpoch: joined.memberEpoch + 5 },
      on('zombie'),
    );
    expect(stale.errorCode).toBe(110); // FENCED_MEMBER_EPOCH
    expect(h.shardOf('cg').consumerConnections.connectionOf('cg', 'member-a')).not.toBe('zombie');
    await h.advance(GRACE);
    expect((await describeGroup()).members).toHaveLength(0);
  });

  it('is still fenced when nothing of it arrives within the grace', async () => {
    await h.coordinator.consumerGroupHeartbeat(joinOrders('member-a'), on('conn-a'));
    h.coordinator.connectionClosed('conn-a');
    h.clock.advance(GRACE);
    const late = h.coordinator.consumerGroupHeartbeat(joinOrders('member-a'), on('conn-a2'));
    await late;
    const group = await describeGroup();
    // Fenced (one bump), then joined anew (another).
    expect(group.groupEpoch).toBe(3);
  });
});
