import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script run with EVALSHA, falling back to EVAL when Redis does not know it (first use, or a
 * Redis restart emptied its script cache). Scripts are what make each store operation atomic: Redis
 * runs one script at a time, with expiry evaluated against one instant for the whole script.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly name: string,
    readonly source: string,
  ) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/** Helpers shared by every script. */
const LUA_HELPERS = `
local function metadata_lost()
  return redis.error_reply('COHORT_METADATA_LOST the metadata of this cluster is missing from Redis')
end
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Epoch counters only grow, and never restart below what some node has already seen (floor).
local function next_epoch(counter, floor)
  local e = tonumber(redis.call('GET', counter) or '0')
  if e < floor then e = floor end
  e = e + 1
  redis.call('SET', counter, string.format('%d', e))
  return e
end
local function raise_counter(counter, floor)
  local e = tonumber(redis.call('GET', counter) or '0')
  if e < floor then redis.call('SET', counter, string.format('%d', floor)) end
end
-- The lease is held with controllerEpoch exactly (KEYS: alive, controller, ...).
local function holds_lease(controller_key, epoch)
  local e = redis.call('HGET', controller_key, 'controllerEpoch')
  return e and tonumber(e) == tonumber(epoch)
end
`;

/**
 * Guards every operation. KEYS[1] is always the cluster's `alive` marker: an operation on a cluster
 * whose marker is gone (Redis restarted without persistence, or was flushed) fails with
 * COHORT_METADATA_LOST so that the store restores what it knows before anything is read or written
 * (see recovery-script.ts).
 */
const LUA_ALIVE_GUARD = `
if redis.call('EXISTS', KEYS[1]) == 0 then return metadata_lost() end
`;

/** Marker of the error every script returns when the cluster's metadata is missing. */
export const METADATA_LOST = 'COHORT_METADATA_LOST';

/** A store operation: helpers, the alive guard, then `body`. */
export function luaScript(name: string, body: string): LuaScript {
  return new LuaScript(name, `${LUA_HELPERS}${LUA_ALIVE_GUARD}${body}`);
}

/** A script that must run even when the metadata is missing (the recovery itself). */
export function unguardedLuaScript(name: string, body: string): LuaScript {
  return new LuaScript(name, `${LUA_HELPERS}${body}`);
}
