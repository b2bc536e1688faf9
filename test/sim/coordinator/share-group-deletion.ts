import type { GroupCoordinator } from '@cohort/coordinator';
import { ErrorCode } from '@cohort/protocol';
import type { CallOutcome } from './sim-coordinators';

/**
 * What an operator's DeleteGroups of a share group did, as far as its answers tell:
 * - `deleted`: it took effect when the attempt answered NONE was sent (every earlier attempt never
 *   reached a coordinator), so the group and its share-partition state are gone from then on;
 * - `refused`: nothing was deleted (NON_EMPTY_GROUP or GROUP_ID_NOT_FOUND, every earlier attempt
 *   unreachable), so what the old group acknowledged still stands;
 * - `maybe`: an attempt whose answer was lost, timed out or said the coordinator moved may have been
 *   written (its write can reach the follower that takes over), so the group may or may not be gone.
 */
export type DeletionOutcome = { kind: 'deleted'; at: number } | { kind: 'refused' } | { kind: 'maybe' };

/** Answers that say the request was turned away before anything was written (group state validated). */
const DEFINITE = new Set<number>([ErrorCode.NONE, ErrorCode.NON_EMPTY_GROUP, ErrorCode.GROUP_ID_NOT_FOUND]);

/**
 * Deletes `groupId` as an operator does (REST `DELETE /v1/groups/:groupId`, i.e. the coordinator's
 * DeleteGroups), retrying while the coordinator is moving, until a definite answer or `attempts` run out.
 * The simulated coordinator handles a request when it is sent, so an attempt's send time is when it
 * takes effect.
 */
export async function deleteShareGroup(
  groupId: string,
  send: (request: (c: GroupCoordinator) => Promise<number>) => Promise<CallOutcome<number>>,
  now: () => number,
  sleep: (ms: number) => Promise<void>,
  attempts = 12,
): Promise<{ outcome: DeletionOutcome; answers: string[] }> {
  const answers: string[] = [];
  let uncertain = false;
  for (let attempt = 0; attempt < attempts; attempt++) {
    const sentAt = now();
    const r = await send((c) =>
      c.deleteGroups({ groupsNames: [groupId] }).then((response) => response.results[0]?.errorCode ?? -1),
    );
    answers.push(r.ok ? String(r.value) : r.reason);
    if (r.ok && DEFINITE.has(r.value)) {
      if (uncertain) return { outcome: { kind: 'maybe' }, answers };
      return { outcome: r.value === ErrorCode.NONE ? { kind: 'deleted', at: sentAt } : { kind: 'refused' }, answers };
    }
    if (!r.ok && r.reason === 'unreachable') {
      await sleep(300);
      continue;
    }
    uncertain = true;
    await sleep(300);
  }
  return { outcome: uncertain ? { kind: 'maybe' } : { kind: 'refused' }, answers };
}
