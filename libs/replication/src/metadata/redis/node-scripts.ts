import { luaScript } from './lua-script';

/**
 * The node registry. A registration is a hash with a TTL (so expiry is measured by Redis's clock),
 * plus its id in the `nodes` set for listing; ids whose hash has expired are pruned while listing.
 */

/** KEYS: alive, nodeEpoch, nodes, node, changes. ARGV: nodeId, endpoint, previousNodeEpoch, ttlMs, epochFloor. */
export const REGISTER_NODE = luaScript(
  'registerNode',
  `
local epoch = next_epoch(KEYS[2], tonumber(ARGV[5]))
redis.call('DEL', KEYS[4])
redis.call('HSET', KEYS[4], 'nodeEpoch', string.format('%d', epoch), 'endpoint', ARGV[2], 'shuttingDown', '0', 'previousNodeEpoch', ARGV[3])
redis.call('PEXPIRE', KEYS[4], ARGV[4])
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('PUBLISH', KEYS[5], 'N')
return epoch
`,
);

/** KEYS: alive, node. ARGV: nodeEpoch, ttlMs. Returns 1 when renewed, 0 when fenced. */
export const RENEW_NODE = luaScript(
  'renewNode',
  `
local current = redis.call('HGET', KEYS[2], 'nodeEpoch')
if not current or tonumber(current) ~= tonumber(ARGV[1]) then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
`,
);

/** KEYS: alive, node, changes. ARGV: nodeEpoch. Returns 1 when marked (or already), 0 when gone. */
export const REQUEST_SHUTDOWN = luaScript(
  'requestShutdown',
  `
local current = redis.call('HMGET', KEYS[2], 'nodeEpoch', 'shuttingDown')
if not current[1] or tonumber(current[1]) ~= tonumber(ARGV[1]) then return 0 end
if current[2] ~= '1' then
  redis.call('HSET', KEYS[2], 'shuttingDown', '1')
  redis.call('PUBLISH', KEYS[3], 'N')
end
return 1
`,
);

/** KEYS: alive, node, nodes, changes. ARGV: nodeId, nodeEpoch. */
export const DEREGISTER_NODE = luaScript(
  'deregisterNode',
  `
local current = redis.call('HGET', KEYS[2], 'nodeEpoch')
if not current or tonumber(current) ~= tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('PUBLISH', KEYS[4], 'N')
return 1
`,
);

/**
 * KEYS: alive, nodes. ARGV: node key prefix. Returns [id, nodeEpoch, endpoint, shuttingDown,
 * previousNodeEpoch] per live registration, unordered.
 */
export const LIST_NODES = luaScript(
  'listNodes',
  `
local out = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local r = redis.call('HMGET', ARGV[1] .. id, 'nodeEpoch', 'endpoint', 'shuttingDown', 'previousNodeEpoch')
  if r[1] then
    table.insert(out, { id, r[1], r[2], r[3], r[4] })
  else
    redis.call('SREM', KEYS[2], id)
  end
end
return out
`,
);
