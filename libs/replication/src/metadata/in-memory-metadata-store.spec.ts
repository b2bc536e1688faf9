import { ManualClock } from '../time/manual-clock';
import { InMemoryMetadataStore } from './in-memory-metadata-store';
import type { PartitionState } from './partition-state';

const p0: PartitionState = {
  partition: 0,
  replicas: [1],
  isr: [{ nodeId: 1, nodeEpoch: 1 }],
  elr: [],
  leader: 1,
  leaderEpoch: 0,
  partitionEpoch: 0,
  leaderRecoveryState: 'RECOVERED',
};

describe('InMemoryMetadataStore', () => {
  it('registrations get increasing epochs, expire without renewal, and a re-registration replaces the old one', async () => {
    const clock = new ManualClock();
    const store = new InMemoryMetadataStore(clock);
    const a = await store.registerNode(1, 'a', -1, 1_000);
    clock.advance(600);
    expect(await store.renewNode(1, a.nodeEpoch, 1_000)).toBe(true);
    clock.advance(900);
    expect((await store.listNodes()).map((n) => n.nodeId)).toEqual([1]);
    const again = await store.registerNode(1, 'a', a.nodeEpoch, 1_000);
    expect(again.nodeEpoch).toBeGreaterThan(a.nodeEpoch);
    expect(await store.renewNode(1, a.nodeEpoch, 1_000)).toBe(false); // the old incarnation is fenced
    clock.advance(1_000);
    expect(await store.listNodes()).toEqual([]);
  });

  it('the controller lease goes to one node at a time, with a new epoch when it changes hands', async () => {
    const clock = new ManualClock();
    const store = new InMemoryMetadataStore(clock);
    const first = await store.acquireControllerLease(1, 1_000);
    expect(await store.acquireControllerLease(2, 1_000)).toBeNull();
    expect(await store.acquireControllerLease(1, 1_000)).toEqual(first); // renewal keeps the epoch
    clock.advance(1_000);
    const second = await store.acquireControllerLease(2, 1_000);
    expect(second!.controllerEpoch).toBe(first!.controllerEpoch + 1);
  });

  it('partition writes are compare-and-set on the partition epoch and fenced by the controller epoch', async () => {
    const clock = new ManualClock();
    const store = new InMemoryMetadataStore(clock);
    const lease = (await store.acquireControllerLease(1, 1_000))!;
    expect(await store.createPartitions([p0], lease.controllerEpoch)).toBe(1);
    const next = { ...p0, partitionEpoch: 1, isr: [] };
    expect(await store.compareAndSetPartition(0, next, lease.controllerEpoch)).toMatchObject({ ok: true });
    expect(await store.compareAndSetPartition(0, next, lease.controllerEpoch)).toMatchObject({
      ok: false,
      reason: 'STALE_PARTITION_EPOCH',
    });
    expect(
      await store.compareAndSetPartition(1, { ...next, partitionEpoch: 2 }, lease.controllerEpoch + 1),
    ).toMatchObject({ ok: false, reason: 'NOT_CONTROLLER' });
    expect((await store.getPartition(0))!.partitionEpoch).toBe(1);
  });

  it('notifies watchers of changes, after the writer has returned', async () => {
    const clock = new ManualClock();
    const store = new InMemoryMetadataStore(clock);
    const seen: string[] = [];
    store.watch({ onNodesChanged: () => seen.push('nodes'), onPartitionChanged: (s) => seen.push(`p${s.partition}`) });
    const lease = (await store.acquireControllerLease(1, 1_000))!;
    await store.registerNode(1, 'a', -1, 1_000);
    await store.createPartitions([p0], lease.controllerEpoch);
    await Promise.resolve();
    expect(seen).toEqual(['nodes', 'p0']);
  });
});
