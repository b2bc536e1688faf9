import type * as P from '@cohort/protocol';
import { shareAcknowledge, shareAcknowledgeError, type TopicReadable } from '../share/share-acknowledge';
import { shareAcquire, shareAcquireError } from '../share/share-acquire';
import {
  deadLetterViews,
  type DeadLetterView,
  redeliverDeadLetters,
  type RedeliverResult,
} from '../share/share-partition-views';
import {
  resetShareOffsets,
  type ShareOffsetsResetCall,
  type ShareOffsetsResetResult,
} from '../share/share-offset-reset';
import type { ApiSpec } from './coordinator-dispatch';
import { runQueuedShareHeartbeats } from '../handlers/share-heartbeat-queue';

/**
 * The share groups' data plane in the coordinator's API table (docs/protocol.md): ShareAcquire and
 * ShareAcknowledge on the shard of the group. Each call carries which topics the caller may read
 * (READ TOPIC, decided at the edge), so a refused topic's partitions answer 29 without leasing. The
 * share heartbeats queued before them run first: a member that left is not leased to afterwards.
 */
export interface ShareCall<Req> {
  request: Req;
  readable: TopicReadable;
}

export const SHARE_ACQUIRE: ApiSpec<ShareCall<P.ShareAcquireRequest>, P.ShareAcquireResponse> = {
  name: 'ShareAcquire',
  // The request's shape is its DTO's; the rules of the state are the share partitions' (Kafka's codes).
  validate: () => null,
  groupId: (call) => call.request?.groupId,
  emptyGroupIdAllowed: false,
  operation: {
    kind: 'parked',
    run: (shard, call, _context, respond) => {
      runQueuedShareHeartbeats(shard);
      return shareAcquire(shard.sharePartitions, call.request, call.readable, respond);
    },
  },
  errorResponse: (_call, error) => shareAcquireError(error.errorCode, messageOf(error)),
};

export const SHARE_ACKNOWLEDGE: ApiSpec<ShareCall<P.ShareAcknowledgeRequest>, P.ShareAcknowledgeResponse> = {
  name: 'ShareAcknowledge',
  validate: () => null,
  groupId: (call) => call.request?.groupId,
  emptyGroupIdAllowed: false,
  operation: {
    kind: 'write',
    run: (shard, call) => {
      runQueuedShareHeartbeats(shard);
      return shareAcknowledge(shard.sharePartitions, call.request, call.readable);
    },
  },
  errorResponse: (_call, error) => shareAcknowledgeError(error.errorCode, messageOf(error)),
};

/** Operators: a share group's dead letters. */
export const SHARE_DEAD_LETTERS: ApiSpec<string, DeadLetterView[]> = {
  name: 'ShareDeadLetters',
  validate: () => null,
  groupId: (groupId) => groupId,
  emptyGroupIdAllowed: false,
  operation: { kind: 'read', run: (shard, groupId) => deadLetterViews(shard.sharePartitions, groupId) },
  errorResponse: (_groupId, error) => {
    throw error;
  },
};

export interface RedeliverCall {
  groupId: string;
  topic: string;
  partition: number;
  firstOffset: number;
  lastOffset: number;
}

/** Operators: dead letters made available again (answered once written). */
export const SHARE_REDELIVER: ApiSpec<RedeliverCall, RedeliverResult> = {
  name: 'ShareRedeliver',
  validate: () => null,
  groupId: (call) => call.groupId,
  emptyGroupIdAllowed: false,
  operation: {
    kind: 'write',
    run: (shard, call) =>
      redeliverDeadLetters(
        shard.sharePartitions,
        call.groupId,
        call.topic,
        call.partition,
        call.firstOffset,
        call.lastOffset,
      ),
  },
  errorResponse: (_call, error) => {
    throw error;
  },
};

/** Operators: a share group's start offsets moved (only while it has no members; answered once written). */
export const SHARE_OFFSETS_RESET: ApiSpec<ShareOffsetsResetCall, ShareOffsetsResetResult> = {
  name: 'ShareOffsetsReset',
  validate: () => null,
  groupId: (call) => call.groupId,
  emptyGroupIdAllowed: false,
  operation: {
    kind: 'write',
    run: (shard, call) => resetShareOffsets(shard.sharePartitions, shard.shareGroup(call.groupId)?.size ?? 0, call),
  },
  errorResponse: (_call, error) => {
    throw error;
  },
};

function messageOf(error: { message: string; errorName: string }): string | undefined {
  return error.message === error.errorName ? undefined : error.message;
}
