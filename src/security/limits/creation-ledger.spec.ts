import { Redis } from 'ioredis';
import { TEST_REDIS_URL, uniqueClusterId } from '@cohort/replication/testing';
import { tempDataDir } from '../../../test/support/test-app';
import type { CreationLedger } from './creation-ledger.port';
import { FileCreationLedger } from './file-creation-ledger';
import { RedisCreationLedger } from './redis-creation-ledger';

/** Both ledgers keep the same count; each is opened twice, as after a restart (embedded) or on two nodes (cluster). */
const data = tempDataDir('cohort-ledger-');
const clusterId = uniqueClusterId('created');
const opened: CreationLedger[] = [];
const kinds: Array<[string, () => Promise<CreationLedger>]> = [
  ['FileCreationLedger', () => Promise.resolve(new FileCreationLedger(data.dir))],
  ['RedisCreationLedger', () => RedisCreationLedger.connect({ url: TEST_REDIS_URL, clusterId })],
];

afterAll(async () => {
  await Promise.all(opened.map((l) => l.close()));
  data.remove();
  const admin = new Redis(TEST_REDIS_URL);
  const keys = await admin.keys(`${clusterId}:*`);
  if (keys.length > 0) await admin.del(...keys);
  admin.disconnect();
});

describe.each(kinds)('%s', (name, open) => {
  const ledger = async () => {
    const l = await open();
    opened.push(l);
    return l;
  };

  it('charges names up to the limit, frees a released one, and keeps the count for the next opening', async () => {
    const a = await ledger();
    expect(await a.claim('group', 'User:a', 'g1', 2)).toBe('claimed');
    expect(await a.claim('group', 'User:a', 'g1', 2)).toBe('held');
    expect(await a.claim('group', 'User:a', 'g2', 2)).toBe('claimed');
    expect(await a.claim('group', 'User:a', 'g3', 2)).toBe('full');
    expect(await a.claim('topic', 'User:a', 't1', 1)).toBe('claimed'); // kinds are counted apart
    expect(await a.claim('group', 'User:b', 'g3', 2)).toBe('claimed'); // and principals
    await a.close();

    const b = await ledger();
    expect((await b.held('group', 'User:a')).sort()).toEqual(['g1', 'g2']);
    expect(await b.claim('group', 'User:a', 'g3', 2)).toBe('full');
    await b.release('group', 'g1');
    await b.release('group', 'never-charged');
    expect(await b.claim('group', 'User:a', 'g4', 2)).toBe('claimed');
    // A stale name (its group is gone, its creator never told) moves to whoever creates it again.
    expect(await b.claim('group', 'User:a', 'g3', 3)).toBe('claimed');
    expect(await b.held('group', 'User:b')).toEqual([]);
  });

  it('hands out the last slot once when two claim it at the same time', async () => {
    // One process owns the file; in Redis two nodes race.
    const a = await ledger();
    const b = name === 'FileCreationLedger' ? a : await ledger();
    const outcomes = await Promise.all([a.claim('group', 'User:race', 'x', 1), b.claim('group', 'User:race', 'y', 1)]);
    expect(outcomes.sort()).toEqual(['claimed', 'full']);
  });
});
