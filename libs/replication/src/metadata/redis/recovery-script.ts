import { luaScript, unguardedLuaScript } from './lua-script';

/**
 * Restoring the metadata after Redis lost it (a restart without persistence, or a flush).
 *
 * Every store keeps the newest copy it has seen of each partition state and the highest node and
 * controller epochs (SeenMetadata). Each time a store (re)connects, and whenever an operation finds the
 * `alive` marker gone, it runs this script with what it holds:
 * - the epoch counters are raised to at least the highest epochs seen, so epochs stay increasing across
 *   the loss (a new lease or registration never reuses an epoch that some node still remembers);
 * - if the marker is missing, it is written with the current Redis time: the recovery window opens;
 * - while the window is open, each partition state is put back unless Redis already holds a copy with
 *   the same or a higher partition epoch (the newest copy among all live nodes wins);
 * - after the window, partition states are not put back (a controller may have acted on them), but
 *   the script returns Redis's copy of every partition the store has seen, so that the store can tell
 *   whether Redis lost a write without losing everything (a Sentinel promoted a replica that missed
 *   it) and repair the fork (forked-partition-repair.ts) — also when a controller has since written
 *   newer states on the stale copy.
 *
 * During the window no node may take a free controller lease (controller-scripts.ts), so no controller
 * writes partition state before the live nodes have put theirs back. Registrations and the lease are not
 * restored: renewals fail, nodes register again (vouching for their previous epoch), and a controller
 * is elected once the window closes. A brand-new cluster goes through the same window once.
 *
 * KEYS: alive, nodeEpoch, controllerEpoch, partitions, changes.
 * ARGV: recoveryWindowMs, nodeEpochFloor, controllerEpochFloor, then (partition, partitionEpoch, json) triples.
 * Returns [mode, restored, ...]: mode 'initialized' (marker was missing), 'merged' (window open) or
 * 'closed', then for 'closed' the stored JSON of each partition seen.
 */
export const RESTORE_METADATA = unguardedLuaScript(
  'restoreMetadata',
  `
raise_counter(KEYS[2], tonumber(ARGV[2]))
raise_counter(KEYS[3], tonumber(ARGV[3]))
local now = now_ms()
local mode = 'merged'
local since = redis.call('GET', KEYS[1])
if not since then
  redis.call('SET', KEYS[1], string.format('%d', now))
  mode = 'initialized'
elseif now >= tonumber(since) + tonumber(ARGV[1]) then
  local out = { 'closed', 0 }
  for i = 4, #ARGV, 3 do
    local current = redis.call('HGET', KEYS[4], ARGV[i])
    if current then table.insert(out, current) end
  end
  return out
end
local restored = 0
for i = 4, #ARGV, 3 do
  local current = redis.call('HGET', KEYS[4], ARGV[i])
  if not current or tonumber(cjson.decode(current).partitionEpoch) < tonumber(ARGV[i + 1]) then
    redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 2])
    redis.call('PUBLISH', KEYS[5], 'P' .. ARGV[i + 2])
    restored = restored + 1
  end
end
return { mode, restored }
`,
);

/**
 * Replaces a forked partition's state with its repair, if Redis still holds exactly `expected`.
 * KEYS: alive, partitions, changes. ARGV: partition, expectedJson, repairedJson. Returns 1 or 0.
 */
export const REPAIR_PARTITION = luaScript(
  'repairPartition',
  `
if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('PUBLISH', KEYS[3], 'P' .. ARGV[3])
return 1
`,
);
