import type { Type } from '@nestjs/common';
import { compiledAccept } from '../contract/socket-contracts';
import { ConsumerGroupHeartbeatDto } from '../dto/consumer-group-heartbeat.dto';
import { HeartbeatDto } from '../dto/heartbeat.dto';
import { JoinGroupDto } from '../dto/join-group.dto';
import { OffsetCommitDto } from '../dto/offset-commit.dto';
import { OffsetFetchDto } from '../dto/offset-fetch.dto';
import { ShareAcknowledgeDto } from '../dto/share-acknowledge.dto';
import { ShareAcquireDto } from '../dto/share-acquire.dto';
import { SyncGroupDto } from '../dto/sync-group.dto';

/**
 * The hot path's check of a payload against a DTO: the request itself for a payload the DTO surely
 * accepts unchanged, else null, and the DTO's validation decides. The dispatch asks this once per event
 * (socket-dispatch.ts); a DTO without a check has every payload validated by class-validator.
 */
export type FastCheck<T> = (payload: unknown) => T | null;

/**
 * The DTOs whose check, compiled from their schema (../contract), is held equal to their validation by
 * a property test (../contract/compiled-checks.spec.ts): the requests a consumer sends most (a classic
 * Heartbeat or a KIP-848 ConsumerGroupHeartbeat, OffsetCommit, OffsetFetch), JoinGroup and SyncGroup,
 * which every member sends at once in a rebalance, and ShareAcquire and ShareAcknowledge, which a
 * share-group worker sends once per job (class-validator cost them a fifth of the server's CPU).
 */
const HOT = new Set<Type<unknown>>([
  HeartbeatDto,
  ConsumerGroupHeartbeatDto,
  OffsetCommitDto,
  OffsetFetchDto,
  JoinGroupDto,
  SyncGroupDto,
  ShareAcquireDto,
  ShareAcknowledgeDto,
]);

export function fastCheckOf<T>(dto: Type<T>): FastCheck<T> | null {
  return HOT.has(dto) ? compiledAccept(dto) : null;
}
