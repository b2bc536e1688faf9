import { luaScript } from './lua-script';

/**
 * Partition state: one hash field per partition holding the state as JSON. Writes are fenced by the
 * controller epoch (the lease must still carry it) and, for changes, by the partition epoch
 * (compare-and-set); each successful write publishes the new state as a change hint.
 */

/** KEYS: alive, partitions. Returns every state's JSON, unordered. */
export const LIST_PARTITIONS = luaScript('listPartitions', `return redis.call('HVALS', KEYS[2])`);

/** KEYS: alive, partitions. ARGV: partition. Returns the JSON or nil. */
export const GET_PARTITION = luaScript('getPartition', `return redis.call('HGET', KEYS[2], ARGV[1])`);

/**
 * KEYS: alive, controller, partitions, changes. ARGV: controllerEpoch, then (partition, json) pairs.
 * Returns how many partitions were created.
 */
export const CREATE_PARTITIONS = luaScript(
  'createPartitions',
  `
if not holds_lease(KEYS[2], ARGV[1]) then return 0 end
local created = 0
for i = 2, #ARGV, 2 do
  if redis.call('HSETNX', KEYS[3], ARGV[i], ARGV[i + 1]) == 1 then
    created = created + 1
    redis.call('PUBLISH', KEYS[4], 'P' .. ARGV[i + 1])
  end
end
return created
`,
);

/**
 * KEYS: alive, controller, partitions, changes. ARGV: controllerEpoch, partition, expectedPartitionEpoch,
 * json. Returns ['OK'], ['NOT_CONTROLLER'], ['UNKNOWN_PARTITION'] or ['STALE_PARTITION_EPOCH', currentJson].
 */
export const COMPARE_AND_SET_PARTITION = luaScript(
  'compareAndSetPartition',
  `
if not holds_lease(KEYS[2], ARGV[1]) then return { 'NOT_CONTROLLER' } end
local current = redis.call('HGET', KEYS[3], ARGV[2])
if not current then return { 'UNKNOWN_PARTITION' } end
if tonumber(cjson.decode(current).partitionEpoch) ~= tonumber(ARGV[3]) then
  return { 'STALE_PARTITION_EPOCH', current }
end
redis.call('HSET', KEYS[3], ARGV[2], ARGV[4])
redis.call('PUBLISH', KEYS[4], 'P' .. ARGV[4])
return { 'OK' }
`,
);
