import type { MetadataStore } from '../metadata-store.port';
import { metadataStoreContract, RedisStoreFixture, uniqueClusterId } from '@cohort/replication/testing';
import type { RedisMetadataStore } from './redis-metadata-store';

// The same contract as the in-memory store, against the real Redis of the machine: one fresh cluster
// id (key prefix) per test, every key deleted afterwards.
const fixture = new RedisStoreFixture();
const clusterOf = new Map<MetadataStore, string>();

metadataStoreContract('RedisMetadataStore', {
  create: async () => {
    const clusterId = uniqueClusterId('contract');
    const store = await fixture.open(clusterId);
    clusterOf.set(store, clusterId);
    return store;
  },
  peer: async (store) => fixture.open(clusterOf.get(store as RedisMetadataStore)!),
  // Redis expires keys on its own clock: time passes by shortening the cluster's TTLs, not by sleeping.
  elapse: (ms) => fixture.elapse(ms),
  settle: () => new Promise((resolve) => setTimeout(resolve, 5)),
  ttlMs: 2_000,
  dispose: () => fixture.dispose(),
});
