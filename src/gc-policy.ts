import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';

/** At most this many CPUs, the young generation is collected on the main thread alone (see `gcFlags`). */
const SERIAL_SCAVENGE_MAX_CPUS = 2;

/** The V8 flags `applyGcPolicy` sets on a machine with `cpus` CPUs, unless the operator chose (`explicit`). */
export function gcFlags(cpus: number, explicit: readonly string[]): string[] {
  const flags = ['--no-allocation-site-pretenuring'];
  const chosen = explicit.some((arg) => /parallel[-_]scavenge|single[-_]threaded[-_]gc/.test(arg));
  if (cpus <= SERIAL_SCAVENGE_MAX_CPUS && !chosen) flags.push('--no-parallel-scavenge');
  return flags;
}

/**
 * The node's garbage collector settings, set before anything else runs.
 *
 * Allocation-site pretenuring is off. A burst of joins (thousands of members whose heartbeats wait across
 * turns of the event loop) made V8 decide, for good, that the objects of the request path's literal
 * sites live long and must be allocated in the old generation. A steady heartbeat's objects then died
 * there, and every young object they pointed to was kept by the next scavenge and promoted: after a
 * 10,000-member join and leave about 2 KB per heartbeat went to the old generation instead of 0.03 KB,
 * each scavenge cost several times more, and the old generation grew until a full collection of the
 * whole heap, so a heartbeat cost more CPU on a node that had held a big group than on a fresh one.
 * Without pretenuring what lives is promoted once it has survived, as on a fresh node.
 *
 * On a machine of at most two CPUs, scavenges run on the main thread alone (V8's parallel scavenge is
 * off), unless the node was started with a flag of its own for it (`--parallel-scavenge`,
 * `--single-threaded-gc`, on the command line or in NODE_OPTIONS). A burst of joins keeps most of what
 * it allocates alive across several scavenges (every parked heartbeat, its records and its answer wait
 * for the group's target and the commit), so each scavenge copies megabytes. With two CPUs the helper
 * threads found no free one (the event loop holds one, the log's fsyncs and the clients the other) and
 * spent more CPU waiting for their share of the copying than the copying itself: while a group of
 * 10,000 members formed, the helpers used 1.6 s of CPU beside the main thread's 1.1 s of pauses, and
 * the pauses were no shorter than without them (about 20 ms each either way).
 */
export function applyGcPolicy(
  cpus = availableParallelism(),
  explicit: readonly string[] = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)],
): void {
  for (const flag of gcFlags(cpus, explicit)) setFlagsFromString(flag);
}
