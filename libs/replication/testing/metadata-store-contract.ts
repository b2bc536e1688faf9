import { NO_LEADER, type MetadataChangeListener, type MetadataStore, type PartitionState } from '@cohort/replication';

/**
 * How the contract drives one implementation. Time is the store's own: virtual for the in-memory store,
 * Redis's wall clock for the Redis store, so `elapse` either advances a ManualClock or sleeps.
 */
export interface MetadataStoreHarness {
  /** A store on a fresh, empty cluster of its own. */
  create(): Promise<MetadataStore>;
  /** Another node's handle on the same cluster as `store` (it may be the same object in memory). */
  peer(store: MetadataStore): Promise<MetadataStore>;
  /** Lets `ms` of the store's time pass. */
  elapse(ms: number): Promise<void>;
  /** Gives pending change hints a chance to arrive (a microtask flush, or a short real wait). */
  settle(): Promise<void>;
  /** Session timeouts and leases used by the expiry tests; long enough to be stable on a busy machine. */
  ttlMs: number;
  /** Closes everything the harness opened. */
  dispose(): Promise<void>;
}

export function partitionState(partition: number, over: Partial<PartitionState> = {}): PartitionState {
  return {
    partition,
    replicas: [1, 2, 3],
    isr: [
      { nodeId: 1, nodeEpoch: 1 },
      { nodeId: 2, nodeEpoch: 2 },
    ],
    elr: [],
    leader: 1,
    leaderEpoch: 0,
    partitionEpoch: 0,
    leaderRecoveryState: 'RECOVERED',
    ...over,
  };
}

/** Records every hint delivered to one watcher. */
class Recorder implements MetadataChangeListener {
  readonly events: string[] = [];
  readonly states: PartitionState[] = [];
  onNodesChanged(): void {
    this.events.push('nodes');
  }
  onControllerChanged(): void {
    this.events.push('controller');
  }
  onPartitionChanged(state: PartitionState): void {
    this.events.push(`partition ${state.partition}@${state.partitionEpoch}`);
    this.states.push(state);
  }
}

/**
 * The MetadataStore contract (metadata-store.port.ts), run against every implementation so that the
 * Redis store provably behaves as the in-memory one the simulator uses.
 */
export function metadataStoreContract(name: string, harness: MetadataStoreHarness): void {
  describe(`${name} satisfies the MetadataStore contract`, () => {
    let store: MetadataStore;
    const ttl = harness.ttlMs;

    beforeEach(async () => {
      store = await harness.create();
    });
    afterEach(() => harness.dispose());

    async function hintsUntil(recorder: Recorder, wanted: string): Promise<void> {
      for (let i = 0; i < 200 && !recorder.events.includes(wanted); i++) await harness.settle();
      expect(recorder.events).toContain(wanted);
    }

    describe('node registry', () => {
      it('gives every registration a larger epoch and lists live nodes in id order', async () => {
        const b = await store.registerNode(2, 'tcp://b:1', -1, ttl);
        const a = await store.registerNode(1, 'tcp://a:1', -1, ttl);
        expect(a.nodeEpoch).toBeGreaterThan(b.nodeEpoch);
        expect(await store.listNodes()).toEqual([
          { nodeId: 1, nodeEpoch: a.nodeEpoch, endpoint: 'tcp://a:1', shuttingDown: false, previousNodeEpoch: -1 },
          { nodeId: 2, nodeEpoch: b.nodeEpoch, endpoint: 'tcp://b:1', shuttingDown: false, previousNodeEpoch: -1 },
        ]);
      });

      it('replaces the registration of a restarted node and fences the old epoch', async () => {
        const first = await store.registerNode(1, 'tcp://a:1', -1, ttl);
        const second = await store.registerNode(1, 'tcp://a:2', first.nodeEpoch, ttl);
        expect(second.nodeEpoch).toBeGreaterThan(first.nodeEpoch);
        expect(second.previousNodeEpoch).toBe(first.nodeEpoch);
        expect(await store.renewNode(1, first.nodeEpoch, ttl)).toBe(false);
        expect(await store.renewNode(1, second.nodeEpoch, ttl)).toBe(true);
        expect(await store.listNodes()).toEqual([{ ...second, shuttingDown: false }]);
      });

      it('hands out distinct epochs to concurrent registrations from several handles', async () => {
        const peer = await harness.peer(store);
        const regs = await Promise.all(
          [1, 2, 3, 4, 5, 6, 7, 8].map((id) => (id % 2 ? store : peer).registerNode(id, `tcp://n${id}:1`, -1, ttl)),
        );
        expect(new Set(regs.map((r) => r.nodeEpoch)).size).toBe(8);
        expect((await peer.listNodes()).map((n) => n.nodeId)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      });

      it('keeps a renewed registration alive and drops one that stopped renewing', async () => {
        const a = await store.registerNode(1, 'tcp://a:1', -1, ttl);
        const b = await store.registerNode(2, 'tcp://b:1', -1, ttl);
        await harness.elapse(Math.floor(ttl * 0.45));
        expect(await store.renewNode(1, a.nodeEpoch, ttl)).toBe(true);
        await harness.elapse(Math.floor(ttl * 0.75));
        expect((await store.listNodes()).map((n) => n.nodeId)).toEqual([1]);
        expect(await store.renewNode(2, b.nodeEpoch, ttl)).toBe(false);
        expect(await store.requestShutdown(2, b.nodeEpoch)).toBe(false);
      });

      it('marks a controlled shutdown only for the current epoch', async () => {
        const a = await store.registerNode(1, 'tcp://a:1', 7, ttl);
        expect(await store.requestShutdown(1, a.nodeEpoch + 100)).toBe(false);
        expect(await store.requestShutdown(1, a.nodeEpoch)).toBe(true);
        expect(await store.requestShutdown(1, a.nodeEpoch)).toBe(true);
        expect(await store.listNodes()).toEqual([
          { nodeId: 1, nodeEpoch: a.nodeEpoch, endpoint: 'tcp://a:1', shuttingDown: true, previousNodeEpoch: 7 },
        ]);
        expect(await store.renewNode(1, a.nodeEpoch, ttl)).toBe(true);
      });

      it('deregisters only the registration of the given epoch', async () => {
        const a = await store.registerNode(1, 'tcp://a:1', -1, ttl);
        await store.deregisterNode(1, a.nodeEpoch - 1);
        expect(await store.listNodes()).toHaveLength(1);
        await store.deregisterNode(1, a.nodeEpoch);
        expect(await store.listNodes()).toEqual([]);
        expect(await store.renewNode(1, a.nodeEpoch, ttl)).toBe(false);
      });
    });

    describe('controller lease', () => {
      it('is taken when free, renewed by its holder with the same epoch, refused to others', async () => {
        expect(await store.getControllerLease()).toBeNull();
        const lease = await store.acquireControllerLease(1, ttl);
        expect(lease).toEqual({ nodeId: 1, controllerEpoch: expect.any(Number) });
        expect(await store.acquireControllerLease(2, ttl)).toBeNull();
        expect(await store.acquireControllerLease(1, ttl)).toEqual(lease);
        expect(await store.getControllerLease()).toEqual(lease);
      });

      it('grows the epoch when it changes hands, by release or by expiry', async () => {
        const first = (await store.acquireControllerLease(1, ttl))!;
        await store.releaseControllerLease(2, first.controllerEpoch);
        await store.releaseControllerLease(1, first.controllerEpoch + 1);
        expect(await store.getControllerLease()).toEqual(first);
        await store.releaseControllerLease(1, first.controllerEpoch);
        expect(await store.getControllerLease()).toBeNull();
        const second = (await store.acquireControllerLease(2, ttl))!;
        expect(second.controllerEpoch).toBe(first.controllerEpoch + 1);
        await harness.elapse(Math.floor(ttl * 1.3));
        expect(await store.getControllerLease()).toBeNull();
        const third = (await store.acquireControllerLease(3, ttl))!;
        expect(third).toEqual({ nodeId: 3, controllerEpoch: second.controllerEpoch + 1 });
      });

      it('lets exactly one of several racing nodes take a free lease', async () => {
        const peer = await harness.peer(store);
        const results = await Promise.all(
          [1, 2, 3, 4].map((id) => (id % 2 ? store : peer).acquireControllerLease(id, ttl)),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        expect(await peer.getControllerLease()).toEqual(winners[0]);
      });
    });

    describe('partition state', () => {
      it('creates missing partitions only under the current controller epoch', async () => {
        const { controllerEpoch } = (await store.acquireControllerLease(1, ttl))!;
        expect(await store.createPartitions([partitionState(0)], controllerEpoch + 1)).toBe(0);
        expect(await store.createPartitions([partitionState(1), partitionState(0)], controllerEpoch)).toBe(2);
        expect(
          await store.createPartitions([partitionState(0, { leader: 2 }), partitionState(2)], controllerEpoch),
        ).toBe(1);
        expect(await store.listPartitions()).toEqual([partitionState(0), partitionState(1), partitionState(2)]);
        expect(await store.getPartition(0)).toEqual(partitionState(0));
        expect(await store.getPartition(9)).toBeNull();
      });

      it('compares and sets on the partition epoch, fenced by the controller epoch', async () => {
        const { controllerEpoch } = (await store.acquireControllerLease(1, ttl))!;
        await store.createPartitions([partitionState(0)], controllerEpoch);
        const next = partitionState(0, {
          leader: 2,
          leaderEpoch: 1,
          partitionEpoch: 1,
          isr: [{ nodeId: 2, nodeEpoch: 2 }],
        });
        expect(await store.compareAndSetPartition(0, next, controllerEpoch - 1)).toEqual({
          ok: false,
          reason: 'NOT_CONTROLLER',
          current: null,
        });
        expect(
          await store.compareAndSetPartition(0, partitionState(5, { partitionEpoch: 1 }), controllerEpoch),
        ).toEqual({
          ok: false,
          reason: 'UNKNOWN_PARTITION',
          current: null,
        });
        expect(await store.compareAndSetPartition(0, next, controllerEpoch)).toEqual({ ok: true, state: next });
        const replay = partitionState(0, { leader: NO_LEADER, partitionEpoch: 1 });
        expect(await store.compareAndSetPartition(0, replay, controllerEpoch)).toEqual({
          ok: false,
          reason: 'STALE_PARTITION_EPOCH',
          current: next,
        });
        expect(await store.getPartition(0)).toEqual(next);
      });

      it('refuses writes from a controller whose lease has passed to another node', async () => {
        const old = (await store.acquireControllerLease(1, ttl))!;
        await store.createPartitions([partitionState(0)], old.controllerEpoch);
        await store.releaseControllerLease(1, old.controllerEpoch);
        const current = (await store.acquireControllerLease(2, ttl))!;
        const next = partitionState(0, { partitionEpoch: 1, leaderEpoch: 1 });
        expect((await store.compareAndSetPartition(0, next, old.controllerEpoch)).ok).toBe(false);
        expect(await store.createPartitions([partitionState(1)], old.controllerEpoch)).toBe(0);
        expect((await store.compareAndSetPartition(0, next, current.controllerEpoch)).ok).toBe(true);
      });

      it('lets exactly one of several concurrent compare-and-sets from the same epoch win', async () => {
        const peer = await harness.peer(store);
        const { controllerEpoch } = (await store.acquireControllerLease(1, ttl))!;
        await store.createPartitions([partitionState(0)], controllerEpoch);
        const outcomes = await Promise.all(
          [1, 2, 3, 4, 5, 6].map((leader) =>
            (leader % 2 ? store : peer).compareAndSetPartition(
              0,
              partitionState(0, { leader, partitionEpoch: 1 }),
              controllerEpoch,
            ),
          ),
        );
        const won = outcomes.filter((o) => o.ok);
        expect(won).toHaveLength(1);
        expect(await peer.getPartition(0)).toEqual(won[0].ok && won[0].state);
        for (const o of outcomes)
          if (!o.ok)
            expect(o).toEqual({ ok: false, reason: 'STALE_PARTITION_EPOCH', current: won[0].ok && won[0].state });
      });

      it('hands out copies that callers cannot use to change the store', async () => {
        const { controllerEpoch } = (await store.acquireControllerLease(1, ttl))!;
        const original = partitionState(0);
        await store.createPartitions([original], controllerEpoch);
        original.isr.push({ nodeId: 3, nodeEpoch: 3 });
        const read = (await store.getPartition(0))!;
        read.replicas.push(99);
        (await store.listPartitions())[0].isr.length = 0;
        expect(await store.getPartition(0)).toEqual(partitionState(0));
      });
    });

    describe('change hints', () => {
      it('tells watchers about registrations, the lease and partition writes', async () => {
        const recorder = new Recorder();
        const peer = await harness.peer(store);
        store.watch(recorder);
        const a = await peer.registerNode(1, 'tcp://a:1', -1, ttl);
        await hintsUntil(recorder, 'nodes');
        const { controllerEpoch } = (await peer.acquireControllerLease(1, ttl))!;
        await hintsUntil(recorder, 'controller');
        await peer.createPartitions([partitionState(3)], controllerEpoch);
        await hintsUntil(recorder, 'partition 3@0');
        const next = partitionState(3, { leader: 2, leaderEpoch: 1, partitionEpoch: 1 });
        await peer.compareAndSetPartition(0, next, controllerEpoch);
        await hintsUntil(recorder, 'partition 3@1');
        expect(recorder.states.at(-1)).toEqual(next);
        recorder.events.length = 0;
        await peer.requestShutdown(1, a.nodeEpoch);
        await hintsUntil(recorder, 'nodes');
        recorder.events.length = 0;
        await peer.deregisterNode(1, a.nodeEpoch);
        await hintsUntil(recorder, 'nodes');
        recorder.events.length = 0;
        await peer.releaseControllerLease(1, controllerEpoch);
        await hintsUntil(recorder, 'controller');
      });

      it('stops telling a watcher that unsubscribed, and says nothing of refused writes', async () => {
        const gone = new Recorder();
        const staying = new Recorder();
        const unsubscribe = store.watch(gone);
        store.watch(staying);
        const { controllerEpoch } = (await store.acquireControllerLease(1, ttl))!;
        await store.createPartitions([partitionState(0)], controllerEpoch);
        await hintsUntil(staying, 'partition 0@0');
        await hintsUntil(gone, 'partition 0@0');
        unsubscribe();
        staying.events.length = 0;
        gone.events.length = 0;
        await store.compareAndSetPartition(5, partitionState(0, { partitionEpoch: 6 }), controllerEpoch);
        await store.compareAndSetPartition(
          0,
          partitionState(0, { partitionEpoch: 1, leaderEpoch: 1 }),
          controllerEpoch,
        );
        await hintsUntil(staying, 'partition 0@1');
        expect(staying.events).toEqual(['partition 0@1']);
        expect(gone.events).toEqual([]);
      });
    });
  });
}
