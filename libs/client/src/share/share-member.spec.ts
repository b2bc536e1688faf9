import { FakeCoordinator, joined, nextLease, setupShare } from '@cohort/client/testing';

/**
 * The share member under a fake clock and a fake share group. Each test names what an application
 * sees; the Kafka behaviour it follows (KafkaShareConsumer, KIP-932/KIP-1222) is in the comment.
 */
describe('ShareMember (share groups under a fake clock)', () => {
  it('joins with epoch 0, a UUID member id and its subscription, then beats with the epoch alone at the interval the coordinator gives', async () => {
    const ctx = setupShare({ rackId: 'r1' });
    const events: string[] = [];
    ctx.member.on('joined', (e) => events.push(`joined ${e.memberEpoch}`));
    ctx.member.on('assigned', (e) => events.push(`assigned ${JSON.stringify(e.partitions)}`));
    await joined(ctx);
    expect(ctx.member.memberId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ctx.server.sent('ShareGroupHeartbeat')[0]).toEqual({
      groupId: 'g',
      memberId: ctx.member.memberId,
      memberEpoch: 0,
      subscribedTopicNames: ['jobs'],
      rackId: 'r1',
    });
    expect(events).toEqual(['joined 1', 'assigned [{"topic":"jobs","partitions":[0]}]']);
    await ctx.timers.advance(10_000);
    const beats = ctx.server.sent('ShareGroupHeartbeat');
    expect(beats).toHaveLength(3);
    expect(beats[2]).toEqual({ groupId: 'g', memberId: ctx.member.memberId, memberEpoch: 1 });
  });

  it('refuses bad options with a message naming each of them', () => {
    const ctx = setupShare();
    expect(() =>
      ctx.client.shareMember({ groupId: '', topics: [], maxRecords: 0, acknowledgement: 'auto' as never }),
    ).toThrow(
      /groupId must be a non-empty string; topics must be a non-empty array.*maxRecords must be an integer of at least 1.*acknowledgement must be 'implicit' or 'explicit'/,
    );
  });

  it('implicit mode: yields leases with their delivery count and lock, and asking for the next one accepts the previous one, piggy-backed on ShareAcquire', async () => {
    const ctx = setupShare({ maxRecords: 3, batchSize: 3 });
    ctx.group.append(6);
    const leases = ctx.member.leases();
    const first = await nextLease(ctx, leases);
    expect(first).toEqual({
      topic: 'jobs',
      partition: 0,
      firstOffset: 0,
      lastOffset: 2,
      deliveryCount: 1,
      lockExpiresAt: expect.any(Number),
    });
    const sent = ctx.server.sent('ShareAcquire')[0];
    expect(sent).toEqual({ groupId: 'g', memberId: ctx.member.memberId, maxRecords: 3, batchSize: 3, maxWaitMs: 5000 });
    expect(first!.lockExpiresAt).toBeLessThanOrEqual(ctx.timers.now() + 30_000);
    const second = await nextLease(ctx, leases);
    expect(second).toMatchObject({ firstOffset: 3, lastOffset: 5 });
    expect(ctx.server.sent('ShareAcquire')[1].acknowledgements).toEqual([
      { topic: 'jobs', partition: 0, batches: [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1] }] },
    ]);
    expect(ctx.group.stateOf(1)?.state).toBe('acknowledged');
    expect(ctx.log).toEqual(['acked jobs-0 0..2 accept']);
  });

  it('implicit mode: what the application acknowledged otherwise keeps its type; only the rest is accepted', async () => {
    const ctx = setupShare({ maxRecords: 4 });
    ctx.group.append(8);
    const leases = ctx.member.leases();
    await nextLease(ctx, leases);
    ctx.member.acknowledge({ topic: 'jobs', partition: 0, offset: 1, type: 'reject' });
    await nextLease(ctx, leases);
    expect(ctx.server.sent('ShareAcquire')[1].acknowledgements[0].batches).toEqual([
      { firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] },
      { firstOffset: 1, lastOffset: 1, acknowledgeTypes: [3] },
      { firstOffset: 2, lastOffset: 3, acknowledgeTypes: [1] },
    ]);
    expect(ctx.group.stateOf(1)?.state).toBe('archived');
  });

  it('explicit mode: offsets left unacknowledged stay held; acknowledging offsets not held throws 42 and changes nothing', async () => {
    const ctx = setupShare({ acknowledgement: 'explicit', maxRecords: 5 });
    ctx.group.append(10);
    const leases = ctx.member.leases();
    await nextLease(ctx, leases);
    ctx.member.acknowledge({ topic: 'jobs', partition: 0, firstOffset: 0, lastOffset: 1, type: 'accept' });
    ctx.member.acknowledge({ topic: 'jobs', partition: 0, offset: 2, type: 'release' });
    expect(() =>
      ctx.member.acknowledge({ topic: 'jobs', partition: 0, firstOffset: 4, lastOffset: 5, type: 'accept' }),
    ).toThrow(expect.objectContaining({ code: 42, message: expect.stringMatching(/not held by this member/) }));
    expect(() => ctx.member.acknowledge({ topic: 'jobs', partition: 0, offset: 1, type: 'accept' })).toThrow(
      /already acknowledged/,
    );
    expect(() => ctx.member.acknowledge({ topic: 'jobs', partition: 0, offset: 3, type: 'renew' as never })).toThrow(
      /type must be accept, release, reject or gap/,
    );
    await nextLease(ctx, leases);
    expect(ctx.server.sent('ShareAcquire')[1].acknowledgements[0].batches).toEqual([
      { firstOffset: 0, lastOffset: 1, acknowledgeTypes: [1] },
      { firstOffset: 2, lastOffset: 2, acknowledgeTypes: [2] },
    ]);
    // 3 and 4 are still this member's; 2 went back and was leased again at once.
    expect(ctx.group.stateOf(3)).toMatchObject({ state: 'acquired', owner: ctx.member.memberId });
    expect(ctx.group.stateOf(2)).toMatchObject({ state: 'acquired', count: 2 });
  });

  it('a ShareAcquire with nothing to lease is held by the coordinator and answered when offsets arrive (a long poll, not a busy loop)', async () => {
    const ctx = setupShare();
    const leases = ctx.member.leases();
    let got: unknown = null;
    void leases.next().then((r) => (got = r.value));
    await ctx.timers.until(() => ctx.server.held.some((h) => h.event === 'ShareAcquire'));
    await ctx.timers.advance(3000);
    expect(ctx.server.sent('ShareAcquire')).toHaveLength(1);
    ctx.group.append(2);
    await ctx.timers.until(() => got !== null);
    expect(got).toMatchObject({ firstOffset: 0, lastOffset: 1, deliveryCount: 1 });
  });

  it('acknowledgements made while a ShareAcquire is held go at once in a ShareAcknowledge', async () => {
    const ctx = setupShare({ acknowledgement: 'explicit', maxRecords: 2 });
    ctx.group.append(2);
    const leases = ctx.member.leases();
    const lease = await nextLease(ctx, leases);
    void leases.next();
    await ctx.timers.until(() => ctx.server.held.length === 1);
    ctx.member.acknowledge({
      topic: 'jobs',
      partition: 0,
      firstOffset: lease!.firstOffset,
      lastOffset: 1,
      type: 'accept',
    });
    await ctx.timers.until(() => ctx.log.length > 0, 100);
    expect(ctx.server.sent('ShareAcknowledge')).toEqual([
      {
        groupId: 'g',
        memberId: ctx.member.memberId,
        acknowledgements: [
          { topic: 'jobs', partition: 0, batches: [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [1] }] },
        ],
      },
    ]);
    expect(ctx.log).toEqual(['acked jobs-0 0..1 accept']);
  });

  it('renews a lease the application still holds two thirds into its lock (RENEW, type 4), so it outlives the lock (KIP-1222)', async () => {
    const ctx = setupShare({ acknowledgement: 'explicit' });
    ctx.group.lockMs = 3000;
    ctx.group.append(3);
    const lease = await nextLease(ctx, ctx.member.leases());
    const firstExpiry = lease!.lockExpiresAt;
    await ctx.timers.advance(10_000);
    const renewals = ctx.server.sent('ShareAcknowledge');
    expect(renewals.length).toBeGreaterThanOrEqual(4);
    expect(renewals[0].acknowledgements).toEqual([
      { topic: 'jobs', partition: 0, batches: [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [4] }] },
    ]);
    expect(lease!.lockExpiresAt).toBeGreaterThan(firstExpiry + 6000);
    expect(ctx.log).toEqual([]);
    ctx.member.acknowledge({ topic: 'jobs', partition: 0, firstOffset: 0, lastOffset: 2, type: 'accept' });
    await ctx.timers.advance(3000);
    expect(ctx.group.stateOf(2)?.state).toBe('acknowledged');
  });

  it('renew(lease) renews at once; a lease whose renewal the coordinator refuses is reported lost', async () => {
    const ctx = setupShare({ acknowledgement: 'explicit' });
    ctx.group.append(2);
    const lease = await nextLease(ctx, ctx.member.leases());
    const renewing = ctx.member.renew(lease!);
    await ctx.timers.until(() => ctx.server.sent('ShareAcknowledge').length === 1, 100);
    await renewing;
    expect(ctx.server.sent('ShareAcknowledge')[0].acknowledgements[0].batches[0].acknowledgeTypes).toEqual([4]);
    ctx.server.answer('ShareAcknowledge' as never, (p: any) => ({
      errorCode: 0,
      partitions: p.acknowledgements.map((a: any) => ({ topic: a.topic, partition: a.partition, errorCode: 42 })),
    }));
    const refused = ctx.member.renew(lease!).catch((e: unknown) => e);
    await ctx.timers.until(() => ctx.log.length > 0, 100);
    expect(await refused).toMatchObject({ code: 42 });
    expect(ctx.log).toEqual(['lost jobs-0 0..1']);
    expect(() => ctx.member.acknowledge({ topic: 'jobs', partition: 0, offset: 0, type: 'accept' })).toThrow(
      /not held/,
    );
  });

  it("an acknowledgement the coordinator refuses carries the coordinator's reason", async () => {
    const ctx = setupShare({ acknowledgement: 'explicit' });
    ctx.group.append(2);
    await nextLease(ctx, ctx.member.leases());
    const reason = 'Offsets 0-1 cannot be acknowledged: the acquisition lock of offsets 0-1 timed out.';
    ctx.server.answer('ShareAcknowledge' as never, (p: any) => ({
      errorCode: 0,
      partitions: p.acknowledgements.map((a: any) => ({
        topic: a.topic,
        partition: a.partition,
        errorCode: 42,
        errorMessage: reason,
      })),
    }));
    ctx.member.acknowledge({ topic: 'jobs', partition: 0, firstOffset: 0, lastOffset: 1, type: 'accept' });
    const [event] = await ctx.member.commit();
    expect(event.error).toMatchObject({ code: 42 });
    expect(event.error!.message).toBe(`jobs-0: ${reason}`);
  });

  it('reports a lease lost when its lock ran out while the coordinator could not be reached, and the coordinator leases it again with a higher count', async () => {
    const ctx = setupShare({ acknowledgement: 'explicit' });
    ctx.group.lockMs = 3000;
    ctx.group.append(1);
    const leases = ctx.member.leases();
    const lease = await nextLease(ctx, leases);
    ctx.server.always('ShareAcknowledge' as never, () => FakeCoordinator.HOLD);
    await ctx.timers.advance(3500);
    expect(ctx.log).toEqual(['lost jobs-0 0..0']);
    await expect(ctx.member.renew(lease!)).rejects.toMatchObject({ code: 42 });
    ctx.server.clear('ShareAcknowledge' as never);
    ctx.server.held.length = 0;
    ctx.group.append(0);
    const again = await nextLease(ctx, leases);
    expect(again).toMatchObject({ firstOffset: 0, deliveryCount: 2 });
  });

  it('a HeartbeatNow push makes it beat at once', async () => {
    const ctx = setupShare();
    await joined(ctx);
    const before = ctx.server.sent('ShareGroupHeartbeat').length;
    ctx.server.push('HeartbeatNow', { groupId: 'g', memberEpoch: 1, reason: 'assignment changed' });
    ctx.server.push('HeartbeatNow', { groupId: 'other', memberEpoch: 1, reason: 'not ours' });
    await ctx.timers.advance(10);
    expect(ctx.server.sent('ShareGroupHeartbeat')).toHaveLength(before + 1);
  });

  it('UNKNOWN_MEMBER_ID on a heartbeat: the leases are lost and it joins again with epoch 0, keeping its id', async () => {
    const ctx = setupShare({ acknowledgement: 'explicit' });
    ctx.group.append(2);
    await nextLease(ctx, ctx.member.leases());
    const id = ctx.member.memberId;
    ctx.group.members.delete(id);
    await ctx.timers.until(() => ctx.log.length > 0);
    expect(ctx.log).toEqual(['lost jobs-0 0..1']);
    await ctx.timers.until(() => ctx.member.memberEpoch === 1);
    const beats = ctx.server.sent('ShareGroupHeartbeat');
    expect(beats.at(-1)).toMatchObject({ memberId: id, memberEpoch: 0, subscribedTopicNames: ['jobs'] });
  });

  it('follows its coordinator: a lost connection finds the coordinator again and beats with the whole request', async () => {
    const ctx = setupShare();
    await joined(ctx);
    ctx.server.coordinator = { nodeId: 1, url: 'http://node-1' };
    ctx.server.nodes = [...ctx.server.nodes, ctx.server.coordinator];
    ctx.server.kill('http://node-0');
    await ctx.timers.until(() =>
      ctx.server.requests.some((r) => r.event === 'ShareGroupHeartbeat' && r.url === 'http://node-1'),
    );
    const beat = ctx.server.requests.filter((r) => r.url === 'http://node-1' && r.event === 'ShareGroupHeartbeat')[0];
    expect(beat.payload).toMatchObject({ memberEpoch: 1, subscribedTopicNames: ['jobs'] });
  });

  it('leaving the loop releases what the current lease left and what was granted but not handed out', async () => {
    const ctx = setupShare({ maxRecords: 4, batchSize: 2 });
    ctx.group.append(4);
    const leases = ctx.member.leases();
    await nextLease(ctx, leases);
    await leases.return(undefined);
    await ctx.timers.until(() => ctx.server.sent('ShareAcknowledge').length === 1, 100);
    expect(ctx.server.sent('ShareAcknowledge')[0].acknowledgements[0].batches).toEqual([
      { firstOffset: 0, lastOffset: 3, acknowledgeTypes: [2] },
    ]);
    expect(ctx.group.stateOf(0)).toMatchObject({ state: 'available', count: 1 });
  });

  it('stop() sends what was acknowledged, releases what is held, then leaves with epoch -1', async () => {
    const ctx = setupShare({ acknowledgement: 'explicit', maxRecords: 3 });
    ctx.group.append(3);
    await nextLease(ctx, ctx.member.leases());
    ctx.member.acknowledge({ topic: 'jobs', partition: 0, offset: 0, type: 'accept' });
    const stopped = ctx.member.stop();
    await ctx.timers.until(() => ctx.member.state === 'stopped', 1000);
    await stopped;
    expect(ctx.server.sent('ShareAcknowledge')[0].acknowledgements[0].batches).toEqual([
      { firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] },
      { firstOffset: 1, lastOffset: 2, acknowledgeTypes: [2] },
    ]);
    expect(ctx.server.sent('ShareGroupHeartbeat').at(-1)).toEqual({
      groupId: 'g',
      memberId: ctx.member.memberId,
      memberEpoch: -1,
    });
    expect(ctx.group.members.size).toBe(0);
    expect(ctx.group.stateOf(1)).toMatchObject({ state: 'available' });
  });
});
