import type { HeartbeatResponse, JoinGroupResponse, MemberAssignment, SyncGroupResponse } from '@cohort/protocol';
import { CONSUMER_PROTOCOL_TYPE, ErrorCode } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';

/**
 * What a member does with each group response, as the Java consumer's JoinGroupResponseHandler,
 * SyncGroupResponseHandler and HeartbeatResponseHandler decide it (pure: the member applies the action).
 * Errors not named here are fatal when not retriable, and retried with back-off when they are.
 */
export type JoinAction =
  | { kind: 'joined'; response: JoinGroupResponse }
  /** KIP-394: join again at once with this id. */
  | { kind: 'join-again'; memberId: string }
  /** REBALANCE_IN_PROGRESS: join again at once, nothing reset. */
  | { kind: 'retry-now' }
  /** The membership is gone (25: forget the member id too; 22: keep it); the owned partitions are lost. */
  | { kind: 'reset'; resetMemberId: boolean; reason: string }
  | { kind: 'fail'; error: CohortError };

export function joinAction(response: JoinGroupResponse): JoinAction {
  switch (response.errorCode) {
    case ErrorCode.NONE:
      if (response.protocolType !== null && response.protocolType !== CONSUMER_PROTOCOL_TYPE) {
        // KIP-559: a type mismatch is raised by the client itself.
        return {
          kind: 'fail',
          error: CohortError.of(
            'INCONSISTENT_GROUP_PROTOCOL',
            `the group's protocol type is '${response.protocolType}', not 'consumer'`,
          ),
        };
      }
      return { kind: 'joined', response };
    case ErrorCode.MEMBER_ID_REQUIRED:
      return { kind: 'join-again', memberId: response.memberId };
    case ErrorCode.REBALANCE_IN_PROGRESS:
      return { kind: 'retry-now' };
    case ErrorCode.UNKNOWN_MEMBER_ID:
      return { kind: 'reset', resetMemberId: true, reason: 'JoinGroup answered UNKNOWN_MEMBER_ID' };
    case ErrorCode.ILLEGAL_GENERATION:
      return { kind: 'reset', resetMemberId: false, reason: 'JoinGroup answered ILLEGAL_GENERATION' };
    default:
      return { kind: 'fail', error: CohortError.fromResponse(response as never) };
  }
}

export type SyncAction =
  | { kind: 'synced'; assignment: MemberAssignment }
  /** REBALANCE_IN_PROGRESS: rejoin, nothing reset. */
  | { kind: 'rejoin'; reason: string }
  | { kind: 'reset'; resetMemberId: boolean; reason: string }
  | { kind: 'fail'; error: CohortError };

export function syncAction(response: SyncGroupResponse, protocolName: string | null): SyncAction {
  switch (response.errorCode) {
    case ErrorCode.NONE:
      if (response.protocolName !== null && protocolName !== null && response.protocolName !== protocolName) {
        return {
          kind: 'fail',
          error: CohortError.of(
            'INCONSISTENT_GROUP_PROTOCOL',
            `SyncGroup answered protocol '${response.protocolName}', JoinGroup '${protocolName}'`,
          ),
        };
      }
      return { kind: 'synced', assignment: (response.assignment as MemberAssignment | null) ?? { partitions: [] } };
    case ErrorCode.REBALANCE_IN_PROGRESS:
      return { kind: 'rejoin', reason: 'SyncGroup answered REBALANCE_IN_PROGRESS' };
    case ErrorCode.UNKNOWN_MEMBER_ID:
      return { kind: 'reset', resetMemberId: true, reason: 'SyncGroup answered UNKNOWN_MEMBER_ID' };
    case ErrorCode.ILLEGAL_GENERATION:
      return { kind: 'reset', resetMemberId: false, reason: 'SyncGroup answered ILLEGAL_GENERATION' };
    default:
      return { kind: 'fail', error: CohortError.fromResponse(response as never) };
  }
}

export type HeartbeatAction =
  /** The session lives; `rebalancing` when the coordinator answered REBALANCE_IN_PROGRESS (rejoin if stable). */
  | { kind: 'alive'; rebalancing: boolean }
  | { kind: 'reset'; resetMemberId: boolean; reason: string }
  /** FENCED_INSTANCE_ID: fatal. */
  | { kind: 'fenced'; error: CohortError }
  /** Anything else: report, back off, beat again. */
  | { kind: 'retry'; error: CohortError };

export function heartbeatAction(response: HeartbeatResponse): HeartbeatAction {
  switch (response.errorCode) {
    case ErrorCode.NONE:
      return { kind: 'alive', rebalancing: false };
    case ErrorCode.REBALANCE_IN_PROGRESS:
      return { kind: 'alive', rebalancing: true };
    case ErrorCode.UNKNOWN_MEMBER_ID:
      return { kind: 'reset', resetMemberId: true, reason: 'Heartbeat answered UNKNOWN_MEMBER_ID' };
    case ErrorCode.ILLEGAL_GENERATION:
      return { kind: 'reset', resetMemberId: false, reason: 'Heartbeat answered ILLEGAL_GENERATION' };
    case ErrorCode.FENCED_INSTANCE_ID:
      return { kind: 'fenced', error: CohortError.fromResponse(response as never) };
    default:
      return { kind: 'retry', error: CohortError.fromResponse(response as never) };
  }
}
