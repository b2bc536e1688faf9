import { setFlagsFromString } from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring for this node. A burst of joins (thousands of members whose
 * heartbeats wait across turns of the event loop) made V8 decide, for good, that the objects of the
 * request path's literal sites live long and must be allocated in the old generation. A steady
 * heartbeat's objects then died there, and every young object they pointed to was kept by the next
 * scavenge and promoted: after a 10,000-member join and leave about 2 KB per heartbeat went to the old
 * generation instead of 0.03 KB, each scavenge cost several times more, and the old generation grew
 * until a full collection of the whole heap, so a heartbeat cost more CPU on a node that had held a big
 * group than on a fresh one. Without pretenuring what lives is promoted once it has
 * survived, as on a fresh node.
 */
export function applyGcPolicy(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
