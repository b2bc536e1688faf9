import request from 'supertest';
import { createCohortApp } from '../../src/create-cohort-app';
import { eventually } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { startApp, TEST_ENV, tempDataDir } from '../support/test-app';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(60_000);

/** Start-up validation and graceful shutdown (README.md's configuration table; docs/guarantees.md). */
describe('lifecycle (e2e)', () => {
  it('refuses to start on a bad variable, naming it', async () => {
    await expect(createCohortApp({ ...TEST_ENV, PORT: 'eighty', MEMBER_DISCONNECT_GRACE_MS: '-1' })).rejects.toThrow(
      /PORT="eighty": PORT must be an integer number[\s\S]*MEMBER_DISCONNECT_GRACE_MS="-1"/,
    );
  });

  it('refuses to start when an assignor plugin cannot be loaded, naming it', async () => {
    const data = tempDataDir();
    try {
      await expect(
        createCohortApp({ ...TEST_ENV, DATA_DIR: data.dir, ASSIGNOR_PLUGINS: './no/such-plugin.js' }),
      ).rejects.toThrow(/ASSIGNOR_PLUGINS: plugin '.\/no\/such-plugin.js'/);
    } finally {
      data.remove();
    }
  });

  it('on shutdown answers or fails every in-flight commit, and keeps every acknowledged one', async () => {
    const data = tempDataDir();
    try {
      let running = await startApp({ DATA_DIR: data.dir });
      await request(running.url).post('/v1/topics').send({ name: 'inflight', partitions: 50 }).expect(201);
      const sockets = await Promise.all(Array.from({ length: 10 }, () => connect(running.url)));
      const acknowledged = new Map<string, number>();
      /** Per group: the highest offset whose commit got an answer (success or a retriable failure). */
      const answered = new Map<string, number>();
      /** Per group: the commit that was still waiting for its answer when the socket closed. */
      const unanswered = new Map<string, number>();
      const loops = sockets.map(async (socket, i) => {
        const groupId = `inflight-${i}`;
        for (let offset = 1; ; offset++) {
          const response = await emit<{ errorCode: number; topics?: { partitions: { errorCode: number }[] }[] }>(
            socket,
            'OffsetCommit',
            {
              groupId,
              generationId: -1,
              memberId: '',
              topics: [{ name: 'inflight', partitions: [{ partitionIndex: i, committedOffset: offset }] }],
            },
          ).catch(() => null);
          if (response === null) {
            unanswered.set(groupId, offset);
            return;
          }
          answered.set(groupId, offset);
          const code = response.errorCode || response.topics?.[0]?.partitions[0]?.errorCode;
          if (code === 0) acknowledged.set(groupId, offset);
          else expect([14, 15, 16, 7]).toContain(code); // retriable: load, unavailable, not coordinator, timed out
        }
      });
      // Close while every socket keeps committing, once each has had at least one commit acknowledged.
      await eventually(() => acknowledged.size === 10, 'a first acknowledged commit on every socket');
      await running.close();
      await Promise.all(loops);
      sockets.forEach((s) => s.disconnect());
      // Each socket ended with its connection, with at most the one commit that was on its way.
      expect(unanswered.size).toBe(10);

      running = await startApp({ DATA_DIR: data.dir });
      const reader = await connect(running.url);
      for (const [groupId, offset] of acknowledged) {
        const fetched = await emit<{ topics: { partitions: { committedOffset: number }[] }[] }>(reader, 'OffsetFetch', {
          groupId,
          topics: null,
        });
        const kept = fetched.topics[0].partitions[0].committedOffset;
        // Everything acknowledged is there; a commit that failed during shutdown may also have been kept.
        expect(kept).toBeGreaterThanOrEqual(offset);
        // A kept commit was one the node acted on, and every one it acted on was answered: the commit
        // left unanswered by the closing socket must not have been written (the node never read it).
        expect({ groupId, kept, unanswered: unanswered.get(groupId) }).toEqual({
          groupId,
          kept: Math.min(kept, answered.get(groupId)!),
          unanswered: unanswered.get(groupId),
        });
      }
      reader.disconnect();
      await running.close();
    } finally {
      data.remove();
    }
  });
});
