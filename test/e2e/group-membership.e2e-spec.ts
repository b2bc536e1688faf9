import { eventually, type GroupMember, settledTogether } from '../support/group-member';
import { appPerFile } from '../support/app-per-file';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(60_000);

/** The classic protocol end to end: real app, real log, real sockets (docs/protocol.md). */
describe('group membership (e2e)', () => {
  const app = appPerFile({ topics: { events: 6 } });
  const pool = app.members({ topics: ['events'] });
  const member = (groupId: string) => pool.member(groupId);
  const http = app.http;

  /** Every partition of `events` (6) held by exactly one of `group`. */
  function coverEvents(group: GroupMember[]): boolean {
    const held = group.flatMap((m) => m.held());
    return held.length === 6 && new Set(held).size === 6;
  }

  it('two members join, sync and heartbeat into one generation that splits the topic', async () => {
    const [a, b] = [await member('two'), await member('two')];
    a.start();
    b.start();
    await eventually(() => settledTogether([a, b]) && coverEvents([a, b]), 'a stable generation of two');
    expect(a.held()).toHaveLength(3);
    expect((await a.heartbeat()).errorCode).toBe(0);
    const group = await http().get('/v1/groups/two').expect(200);
    expect(group.body).toMatchObject({
      groupId: 'two',
      state: 'Stable',
      protocolType: 'consumer',
      protocol: 'range',
      generationId: a.generationId,
      coordinator: 0,
    });
    expect(group.body.members).toHaveLength(2);
    expect(group.body.members[0]).toMatchObject({ clientId: 'test-member', subscription: { topics: ['events'] } });
  });

  it('a third member makes the coordinator push RebalanceInProgress to the others, who rejoin into the next generation', async () => {
    const [a, b] = [await member('three'), await member('three')];
    a.start();
    b.start();
    await eventually(() => settledTogether([a, b]), 'two members settled');
    const before = a.generationId;
    const c = await member('three');
    c.start();
    await eventually(() => settledTogether([a, b, c]) && coverEvents([a, b, c]), 'three members settled');
    expect(a.generationId).toBeGreaterThan(before);
    for (const old of [a, b]) {
      expect(old.pushes).toContainEqual(
        expect.objectContaining({ groupId: 'three', generationId: expect.any(Number), reason: expect.any(String) }),
      );
    }
    expect([a, b, c].map((m) => m.held().length)).toEqual([2, 2, 2]);
    const history = await http().get('/v1/groups/three/rebalances').expect(200);
    expect(history.body.length).toBeGreaterThanOrEqual(2);
    const last = history.body.find((rebalance: { generationId: number }) => rebalance.generationId === a.generationId);
    expect(last).toMatchObject({
      generationId: a.generationId,
      members: 3,
      protocol: 'range',
      reason: expect.stringMatching(/.+/),
    });
    expect(last.completedAt).toBeGreaterThanOrEqual(last.startedAt);
  });

  it('a member that leaves is removed at once and the rest rebalance without it', async () => {
    const [a, b] = [await member('leave'), await member('leave')];
    a.start();
    b.start();
    await eventually(() => settledTogether([a, b]), 'two members settled');
    await b.stop();
    const left = await b.leave();
    expect(left.errorCode).toBe(0);
    expect(left.members).toEqual([expect.objectContaining({ memberId: b.memberId, errorCode: 0 })]);
    await eventually(
      () => a.generationId > b.generationId && a.assignedGeneration === a.generationId && coverEvents([a]),
      'the remaining member holds everything',
    );
    const group = await http().get('/v1/groups/leave').expect(200);
    expect(group.body.members.map((m: { memberId: string }) => m.memberId)).toEqual([a.memberId]);
  });

  it('refuses requests of an old generation with ILLEGAL_GENERATION and of an unknown member with UNKNOWN_MEMBER_ID', async () => {
    const [a, b] = [await member('stale'), await member('stale')];
    a.start();
    await eventually(() => settledTogether([a]), 'one member settled');
    const oldGeneration = a.generationId;
    b.start();
    await eventually(() => settledTogether([a, b]) && a.generationId > oldGeneration, 'a new generation');
    expect((await a.heartbeat(oldGeneration)).errorCode).toBe(22);
    const commit = await a.commit([{ topic: 'events', partition: 0, offset: 1 }], oldGeneration);
    expect(commit.topics[0].partitions[0].errorCode).toBe(22);
    const stranger = await member('stale');
    stranger.memberId = 'nobody';
    stranger.generationId = a.generationId;
    expect((await stranger.heartbeat()).errorCode).toBe(25);
    // Nothing of the refused requests changed the group.
    expect((await a.heartbeat()).errorCode).toBe(0);
    const group = await http().get('/v1/groups/stale').expect(200);
    expect(group.body.members).toHaveLength(2);
  });
});
