import { LuaScript } from '@cohort/replication';

/**
 * The cluster-wide topic registry in Redis: `<CLUSTER_ID>:topics` maps each topic to its partition
 * count, `<CLUSTER_ID>:topic-end-offsets:<name>` maps partition → its latest report and time index
 * (redis-topic-registry.ts). Counts only grow, atomically, and each change is published on
 * `<CLUSTER_ID>:topic-changes` (`P<name>` for a new or grown topic, `E<name>:<partitions>` for end
 * offsets) so that every node updates its copy and rebalances.
 */

/** KEYS: topics, changes. ARGV: name, partitions. 1 = created, 0 = exists. */
export const CREATE_TOPIC = new LuaScript(
  'createTopic',
  `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('PUBLISH', KEYS[2], 'P' .. ARGV[1])
return 1
`,
);

/** KEYS: topics, changes. ARGV: name, partitions. The count afterwards (never lowered), or -1 when unknown. */
export const GROW_TOPIC = new LuaScript(
  'growTopic',
  `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if not current then return -1 end
if tonumber(current) >= tonumber(ARGV[2]) then return tonumber(current) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PUBLISH', KEYS[2], 'P' .. ARGV[1])
return tonumber(ARGV[2])
`,
);

/**
 * KEYS: topics, endOffsets, changes. ARGV: name, then (partition, expected value, new value) triples.
 * Applies them only if every partition exists at this moment and still holds the value the writer read
 * (empty: none), a compare and set: returns -1 when the topic is unknown, -2 when a partition's value
 * changed meanwhile (the writer reads again and retries), the first missing partition's index in ARGV
 * when one is out of range, 0 when applied. Publishes `E<name>:<partitions>`.
 */
export const SET_END_OFFSETS = new LuaScript(
  'setEndOffsetsIfUnchanged',
  `
local count = redis.call('HGET', KEYS[1], ARGV[1])
if not count then return -1 end
local changed = {}
for i = 2, #ARGV, 3 do
  if tonumber(ARGV[i]) >= tonumber(count) then return i end
  if (redis.call('HGET', KEYS[2], ARGV[i]) or '') ~= ARGV[i + 1] then return -2 end
  changed[#changed + 1] = ARGV[i]
end
for i = 2, #ARGV, 3 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 2]) end
redis.call('PUBLISH', KEYS[3], 'E' .. ARGV[1] .. ':' .. table.concat(changed, ','))
return 0
`,
);

/**
 * Puts back a node's copy of a topic after Redis lost it (restart without persistence): the count
 * only grows, and end offsets Redis no longer has are restored. KEYS: topics, endOffsets, changes.
 * ARGV: name, partitions, then (partition, endOffset) pairs.
 */
export const RESTORE_TOPIC = new LuaScript(
  'restoreTopic',
  `
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if current < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  redis.call('PUBLISH', KEYS[3], 'P' .. ARGV[1])
end
for i = 3, #ARGV, 2 do redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1
`,
);
