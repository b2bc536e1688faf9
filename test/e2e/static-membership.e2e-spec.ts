import { eventually, settledTogether } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { appPerFile } from '../support/app-per-file';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(60_000);

/** KIP-345: a static member comes back under a new member id without a rebalance; its old id is fenced. */
describe('static membership (e2e)', () => {
  const app = appPerFile({ topics: { orders: 4 } });
  const pool = app.members({ topics: ['orders'], sessionTimeoutMs: 30_000 });

  it.each(['first', 'second'])(
    'rejoins the %s static member of a stable group without a rebalance and fences its old member id',
    async (which) => {
      const groupId = `static-${which}`;
      const a = await pool.member(groupId, { groupInstanceId: 'instance-a' });
      const b = await pool.member(groupId, { groupInstanceId: 'instance-b' });
      a.start();
      await eventually(() => settledTogether([a]), 'a settled');
      b.start();
      await eventually(() => settledTogether([a, b]), 'both settled');
      const restarting = which === 'first' ? a : b;
      const generation = restarting.generationId;
      const oldMemberId = restarting.memberId;
      const heldBefore = restarting.held();
      await restarting.vanish();

      const comeback = await pool.member(groupId, { groupInstanceId: restarting.options.groupInstanceId });
      const joined = await comeback.join();
      expect(joined.errorCode).toBe(0);
      expect(comeback.memberId).not.toBe(oldMemberId);
      expect(joined.generationId).toBe(generation);
      const synced = await comeback.sync(joined);
      expect(synced.errorCode).toBe(0);
      expect(comeback.held()).toEqual(heldBefore);

      const old = await connect(app.url);
      const fenced = await emit(old, 'Heartbeat', {
        groupId,
        generationId: generation,
        memberId: oldMemberId,
        groupInstanceId: restarting.options.groupInstanceId,
      });
      expect(fenced).toMatchObject({ errorCode: 82, errorName: 'FENCED_INSTANCE_ID' });
      old.disconnect();
      const group = await app.http().get(`/v1/groups/${groupId}`).expect(200);
      expect(group.body).toMatchObject({ state: 'Stable', generationId: generation });
    },
  );
});
