import { luaScript } from './lua-script';

/**
 * The controller lease: a hash { nodeId, controllerEpoch } with a TTL. Taking a free lease bumps the
 * controller epoch; the holder renewing keeps it. For a while after the cluster's metadata was
 * initialized or restored (the recovery window) nobody may take a free lease, so that every live node
 * can first put back the partition states it holds (recovery-script.ts).
 */

/**
 * KEYS: alive, controller, controllerEpoch, changes. ARGV: nodeId, leaseMs, epochFloor, recoveryWindowMs.
 * Returns the controller epoch held by nodeId afterwards, or -1 when it does not hold the lease.
 */
export const ACQUIRE_LEASE = luaScript(
  'acquireControllerLease',
  `
local holder = redis.call('HMGET', KEYS[2], 'nodeId', 'controllerEpoch')
if holder[1] then
  if holder[1] ~= ARGV[1] then return -1 end
  redis.call('PEXPIRE', KEYS[2], ARGV[2])
  return tonumber(holder[2])
end
if now_ms() < tonumber(redis.call('GET', KEYS[1])) + tonumber(ARGV[4]) then return -1 end
local epoch = next_epoch(KEYS[3], tonumber(ARGV[3]))
redis.call('HSET', KEYS[2], 'nodeId', ARGV[1], 'controllerEpoch', string.format('%d', epoch))
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('PUBLISH', KEYS[4], 'C')
return epoch
`,
);

/** KEYS: alive, controller, changes. ARGV: nodeId, controllerEpoch. */
export const RELEASE_LEASE = luaScript(
  'releaseControllerLease',
  `
local holder = redis.call('HMGET', KEYS[2], 'nodeId', 'controllerEpoch')
if not holder[1] or holder[1] ~= ARGV[1] or tonumber(holder[2]) ~= tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[2])
redis.call('PUBLISH', KEYS[3], 'C')
return 1
`,
);

/** KEYS: alive, controller. Returns [nodeId, controllerEpoch] or an empty array. */
export const GET_LEASE = luaScript(
  'getControllerLease',
  `
local holder = redis.call('HMGET', KEYS[2], 'nodeId', 'controllerEpoch')
if not holder[1] then return {} end
return holder
`,
);
