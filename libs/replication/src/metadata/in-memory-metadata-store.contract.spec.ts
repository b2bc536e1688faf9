import { ManualClock } from '../time/manual-clock';
import { InMemoryMetadataStore } from './in-memory-metadata-store';
import { metadataStoreContract } from '@cohort/replication/testing';

// The reference implementation under the shared contract; redis/redis-metadata-store.spec.ts runs the
// same suite against Redis.
let clock = new ManualClock();
metadataStoreContract('InMemoryMetadataStore', {
  create: async () => {
    clock = new ManualClock();
    return new InMemoryMetadataStore(clock);
  },
  peer: async (store) => store,
  elapse: async (ms) => clock.advance(ms),
  settle: () => new Promise((resolve) => setImmediate(resolve)),
  ttlMs: 2_000,
  dispose: async () => undefined,
});
