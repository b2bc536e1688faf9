import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as P from '@cohort/protocol';
import { LocalPartitionStore, RealClock } from '@cohort/replication';
import { coordinatorConfig } from '../ports/coordinator-config';
import { GroupCoordinator } from '../group-coordinator';
import { StaticAssignorLookup } from '../ports/server-assignor.port';
import { InMemoryTopicRegistry } from '../topics/in-memory-topic-registry';
import { RecordingPushSink } from '@cohort/coordinator/testing';

/** The coordinator over the real embedded store (files, fsync, real time): what it acknowledged survives a restart. */
describe('GroupCoordinator over LocalPartitionStore', () => {
  let dataDir: string;
  const clock = new RealClock();
  const topics = new InMemoryTopicRegistry({ topics: [{ name: 'orders', partitions: 4, endOffsets: {} }] });
  const config = coordinatorConfig({ numPartitions: 4, groupInitialRebalanceDelayMs: 0 });
  const context = { clientId: 'it', clientHost: '/127.0.0.1', connectionId: 'c-1' };

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cohort-coordinator-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  async function open(): Promise<{ store: LocalPartitionStore; coordinator: GroupCoordinator }> {
    const store = await LocalPartitionStore.open({ dataDir, clock, numPartitions: 4, cleaner: false });
    const coordinator = new GroupCoordinator({
      store,
      clock,
      config,
      topics,
      assignors: new StaticAssignorLookup(),
      push: new RecordingPushSink(),
    });
    coordinator.start();
    await until(() => coordinator.servingPartitions().length === 4);
    return { store, coordinator };
  }

  it('a stable group and its committed offsets come back after the node restarts', async () => {
    const first = await open();
    const join = (memberId: string): Promise<P.JoinGroupResponse> =>
      first.coordinator.joinGroup(
        {
          groupId: 'g',
          memberId,
          sessionTimeoutMs: 30_000,
          protocolType: 'consumer',
          protocols: [{ name: 'range', metadata: { topics: ['orders'] } }],
        },
        context,
      );
    const required = await join('');
    const joined = await join(required.memberId);
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1 });
    const assignment = { partitions: [{ topic: 'orders', partitions: [0, 1, 2, 3] }] };
    const synced = await first.coordinator.syncGroup(
      {
        groupId: 'g',
        memberId: joined.memberId,
        generationId: 1,
        assignments: [{ memberId: joined.memberId, assignment }],
      },
      context,
    );
    expect(synced.assignment).toEqual(assignment);
    const committed = await first.coordinator.offsetCommit(
      {
        groupId: 'g',
        generationId: 1,
        memberId: joined.memberId,
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 2, committedOffset: 77, committedMetadata: 'm' }] }],
      },
      context,
    );
    expect(committed.errorCode).toBe(0);
    first.coordinator.close();
    await first.store.close();

    const second = await open();
    try {
      const view = await second.coordinator.describeGroup('g');
      expect(view).toMatchObject({ state: 'Stable', generationId: 1, leader: joined.memberId, protocol: 'range' });
      expect(view.members[0].assignment).toEqual(assignment);
      const fetched = await second.coordinator.offsetFetch({
        groupId: 'g',
        topics: [{ name: 'orders', partitionIndexes: [2] }],
        requireStable: true,
      });
      expect(fetched.topics[0].partitions[0]).toMatchObject({ committedOffset: 77, metadata: 'm', errorCode: 0 });
      expect(
        (await second.coordinator.heartbeat({ groupId: 'g', memberId: joined.memberId, generationId: 1 }, context))
          .errorCode,
      ).toBe(0);
    } finally {
      second.coordinator.close();
      await second.store.close();
    }
  });
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
