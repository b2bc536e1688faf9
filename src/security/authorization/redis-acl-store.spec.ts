import { Redis } from 'ioredis';
import type { AclBinding } from '@cohort/protocol';
import { TEST_REDIS_URL, uniqueClusterId } from '@cohort/replication/testing';
import { RedisAclStore } from './redis-acl-store';

const READ: AclBinding = {
  principal: 'User:a',
  host: '*',
  resourceType: 'TOPIC',
  resourceName: 't',
  patternType: 'PREFIXED',
  operation: 'READ',
  permission: 'ALLOW',
};

/** Two nodes' stores over one cluster's keys in the test machine's Redis. */
describe('RedisAclStore', () => {
  const clusterId = uniqueClusterId('acls');
  const stores: RedisAclStore[] = [];
  const errors: unknown[] = [];
  const open = async (pollIntervalMs = 500) => {
    const store = await RedisAclStore.connect({
      url: TEST_REDIS_URL,
      clusterId,
      pollIntervalMs,
      onError: (e) => errors.push(e),
    });
    stores.push(store);
    return store;
  };

  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    const admin = new Redis(TEST_REDIS_URL);
    const keys = await admin.keys(`${clusterId}:*`);
    if (keys.length > 0) await admin.del(...keys);
    admin.disconnect();
  });

  it("tells the other node of a change through the hint, and each sees the other's bindings", async () => {
    // b polls once an hour: only the hint can tell it of a's change while the test runs.
    const [a, b] = [await open(), await open(3_600_000)];
    expect(await a.load()).toEqual([]);
    await b.load();
    const seen = new Promise<AclBinding[]>((resolve) => b.watch(resolve));
    expect(await a.add([READ])).toEqual([READ]);
    expect(await seen).toEqual([READ]);
    const { removed, all } = await b.remove([READ, { ...READ, resourceName: 'other' }]);
    expect({ removed, all }).toEqual({ removed: [READ], all: [] });
    expect(await a.load()).toEqual([]);
  });

  it('finds a change by polling the version when no hint arrives', async () => {
    const c = await open(50);
    await c.load();
    const seen = new Promise<AclBinding[]>((resolve) => c.watch(resolve));
    // Written behind the store's back, without a hint: only the version tells.
    const admin = new Redis(TEST_REDIS_URL);
    const binding = { ...READ, resourceName: 'polled' };
    await admin
      .multi()
      .hset(`${clusterId}:acls`, 'x', JSON.stringify(binding))
      .incr(`${clusterId}:acls-version`)
      .exec();
    admin.disconnect();
    expect(await seen).toEqual([binding]);
  });

  it('puts its bindings back when Redis lost them', async () => {
    const d = await open(50);
    await d.add([{ ...READ, resourceName: 'kept' }]);
    d.watch(() => undefined);
    const admin = new Redis(TEST_REDIS_URL);
    await admin.del(`${clusterId}:acls`, `${clusterId}:acls-version`);
    for (let i = 0; i < 200 && (await admin.hlen(`${clusterId}:acls`)) === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect((await d.load()).map((b) => b.resourceName).sort()).toEqual(['kept', 'polled'].sort());
    admin.disconnect();
  });
});
