import { appPerFile } from '../support/app-per-file';
import { eventually } from '../support/group-member';
import { connect, nextPush, request as emit } from '../support/socket-client';

jest.setTimeout(30_000);

/**
 * Rebinding over real sockets (default MEMBER_DISCONNECT_GRACE_MS, 3 s): a member's request over a new
 * connection binds it there; pushes follow it; the old connection's closing no longer concerns it.
 */
describe('a member moves to a new connection (e2e)', () => {
  const app = appPerFile({ topics: { orders: 2 } });
  const pool = app.members({ topics: ['orders'], sessionTimeoutMs: 20_000 });

  it('after a heartbeat over a new socket, pushes for the member go there and not to its old socket', async () => {
    // Driven by hand (no autopilot heartbeats on the old socket, which would bind `a` back to it).
    const [a, b] = [await pool.member('moving'), await pool.member('moving')];
    const joined = await Promise.all([a.join(), b.join()]);
    expect(joined.map((j) => j.errorCode)).toEqual([0, 0]);
    expect((await Promise.all([a.sync(joined[0]), b.sync(joined[1])])).map((s) => s.errorCode)).toEqual([0, 0]);
    const generationId = a.generationId;

    const moved = await connect(app.url, { clientId: 'moved' });
    try {
      expect(await emit(moved, 'Heartbeat', { groupId: 'moving', generationId, memberId: a.memberId })).toMatchObject({
        errorCode: 0,
      });
      // Only the new socket of `a` hears about the next rebalance.
      const pushedToNew = nextPush<{ generationId: number }>(moved, 'RebalanceInProgress');
      const before = a.pushes.length;
      await app.http().patch('/v1/topics/orders').send({ partitions: 4 }).expect(200);
      expect((await pushedToNew).generationId).toBe(generationId);
      await eventually(() => b.pushes.length > 0, 'b heard of the rebalance on its own socket');
      expect(a.pushes.length).toBe(before);
    } finally {
      moved.disconnect();
    }
  });

  it('the grace starts only when the bound connection closes: an old socket closing leaves the member in the group', async () => {
    const a = await pool.member('grace');
    expect((await a.sync(await a.join())).errorCode).toBe(0);
    const replacement = await connect(app.url, { clientId: 'replacement' });
    try {
      expect(
        await emit(replacement, 'Heartbeat', { groupId: 'grace', generationId: a.generationId, memberId: a.memberId }),
      ).toMatchObject({ errorCode: 0 });
      await a.vanish(); // the old socket closes; the member is bound to `replacement`
      // Heartbeat on the bound socket past the grace: the member is still there, same generation.
      for (let i = 0; i < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(
          await emit(replacement, 'Heartbeat', {
            groupId: 'grace',
            generationId: a.generationId,
            memberId: a.memberId,
          }),
        ).toMatchObject({ errorCode: 0 });
      }
      const { body } = await app.http().get('/v1/groups/grace').expect(200);
      expect(body).toMatchObject({ state: 'Stable', generationId: a.generationId });
      expect(body.members.map((m: { memberId: string }) => m.memberId)).toEqual([a.memberId]);
    } finally {
      replacement.disconnect();
    }
  });
});
