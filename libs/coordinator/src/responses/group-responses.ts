import type { JoinGroupResponse, SyncGroupResponse } from '@cohort/protocol';
import { errorFields } from './error-fields';

/** Kafka's `JoinGroupResult(memberId, error)`: no generation, no leader, no members. */
export function joinError(memberId: string, code: number, message?: string): JoinGroupResponse {
  return {
    ...errorFields(code, message),
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leader: '',
    skipAssignment: false,
    memberId,
    members: [],
  };
}

/** Kafka's `SyncGroupResult(error)`. */
export function syncError(code: number, message?: string): SyncGroupResponse {
  return { ...errorFields(code, message), protocolType: null, protocolName: null, assignment: null };
}
