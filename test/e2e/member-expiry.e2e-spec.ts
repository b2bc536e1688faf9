import { eventually, settledTogether } from '../support/group-member';
import { appPerFile } from '../support/app-per-file';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(60_000);

/** Members that stop heartbeating or whose socket vanishes are removed (session timeout; MEMBER_DISCONNECT_GRACE_MS). */
describe('member expiry (e2e)', () => {
  const app = appPerFile({ env: { MEMBER_DISCONNECT_GRACE_MS: '200' }, topics: { clicks: 4 } });
  const pool = app.members({ topics: ['clicks'] });
  const http = app.http;
  const memberIds = async (groupId: string): Promise<string[]> =>
    (await http().get(`/v1/groups/${groupId}`).expect(200)).body.members
      .map((m: { memberId: string }) => m.memberId)
      .sort();

  it('removes a member whose session times out, and the others rebalance without it', async () => {
    const a = await pool.member('session', { sessionTimeoutMs: 60_000 });
    const b = await pool.member('session', { sessionTimeoutMs: 600 });
    a.start();
    b.start();
    await eventually(() => settledTogether([a, b]), 'two members settled');
    await b.stop(); // alive socket, no more heartbeats
    await eventually(async () => (await memberIds('session')).length === 1, 'the silent member to expire', 5_000);
    expect(await memberIds('session')).toEqual([a.memberId]);
    await eventually(
      () => a.generationId > b.generationId && a.assignedGeneration === a.generationId && a.held().length === 4,
      'the survivor to hold everything',
    );
  });

  it('removes a dynamic member soon after its socket closes, long before its session would expire', async () => {
    const a = await pool.member('vanish', { sessionTimeoutMs: 60_000 });
    const b = await pool.member('vanish', { sessionTimeoutMs: 60_000 });
    a.start();
    b.start();
    await eventually(() => settledTogether([a, b]), 'two members settled');
    await b.vanish();
    await eventually(async () => (await memberIds('vanish')).length === 1, 'the vanished member to leave', 5_000);
    expect(await memberIds('vanish')).toEqual([a.memberId]);
  });

  it('keeps a static member whose socket closes until its session times out', async () => {
    const a = await pool.member('static-vanish', { sessionTimeoutMs: 60_000 });
    // A session far longer than the disconnect grace (200 ms), so a slow machine still tells them apart.
    const b = await pool.member('static-vanish', { sessionTimeoutMs: 5_000, groupInstanceId: 'b-instance' });
    // A dynamic member whose socket closes with b's: its removal shows the disconnect grace was at work.
    const c = await pool.member('static-vanish', { sessionTimeoutMs: 60_000 });
    for (const member of [a, b, c]) member.start();
    await eventually(() => settledTogether([a, b, c]), 'three members settled');
    await Promise.all([b.vanish(), c.vanish()]);
    // c goes once the disconnect grace has passed; b, static, is still a member then: it waits for its session.
    await eventually(
      async () => !(await memberIds('static-vanish')).includes(c.memberId),
      'the dynamic member to leave',
      15_000,
    );
    expect(await memberIds('static-vanish')).toContain(b.memberId);
    await eventually(
      async () => (await memberIds('static-vanish')).length === 1,
      'the static member to expire',
      15_000,
    );
    expect(await memberIds('static-vanish')).toEqual([a.memberId]);
    // As the coordinator recorded it: c left for its closed connection, b never did.
    const reasons = ((await http().get('/v1/groups/static-vanish/rebalances').expect(200)).body as { reason: string }[])
      .map((r) => r.reason)
      .join('\n');
    expect(reasons).toContain(`member ${c.memberId} left: its connection closed`);
    expect(reasons).not.toContain(`member ${b.memberId} left: its connection closed`);
  });
});
