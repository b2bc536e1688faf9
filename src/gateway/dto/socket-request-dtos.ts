import type { Type } from '@nestjs/common';
import type { RequestEventName } from '@cohort/protocol';
import { ConsumerGroupDescribeDto } from './consumer-group-describe.dto';
import { ConsumerGroupHeartbeatDto } from './consumer-group-heartbeat.dto';
import { ShareGroupDescribeDto } from './share-group-describe.dto';
import { ShareGroupHeartbeatDto } from './share-group-heartbeat.dto';
import { DeleteGroupsDto } from './delete-groups.dto';
import { DescribeGroupsDto } from './describe-groups.dto';
import { FindCoordinatorDto } from './find-coordinator.dto';
import { HeartbeatDto } from './heartbeat.dto';
import { JoinGroupDto } from './join-group.dto';
import { LeaveGroupDto } from './leave-group.dto';
import { ListGroupsDto } from './list-groups.dto';
import { MetadataDto } from './metadata.dto';
import { OffsetCommitDto } from './offset-commit.dto';
import { OffsetDeleteDto } from './offset-delete.dto';
import { OffsetFetchDto } from './offset-fetch.dto';
import { ShareAcknowledgeDto } from './share-acknowledge.dto';
import { ShareAcquireDto } from './share-acquire.dto';
import { SyncGroupDto } from './sync-group.dto';

/**
 * Each socket request's one definition: its DTO. The gateway validates with it, and the hot path's
 * compiled checks and the AsyncAPI document's request payloads are derived from it (../contract).
 * Keyed by the protocol's event names, so an event without a DTO fails to compile.
 */
export const SOCKET_REQUEST_DTOS: { [E in RequestEventName]: Type<unknown> } = {
  FindCoordinator: FindCoordinatorDto,
  Metadata: MetadataDto,
  JoinGroup: JoinGroupDto,
  SyncGroup: SyncGroupDto,
  Heartbeat: HeartbeatDto,
  LeaveGroup: LeaveGroupDto,
  OffsetCommit: OffsetCommitDto,
  OffsetFetch: OffsetFetchDto,
  OffsetDelete: OffsetDeleteDto,
  DescribeGroups: DescribeGroupsDto,
  ListGroups: ListGroupsDto,
  DeleteGroups: DeleteGroupsDto,
  ConsumerGroupHeartbeat: ConsumerGroupHeartbeatDto,
  ConsumerGroupDescribe: ConsumerGroupDescribeDto,
  ShareAcquire: ShareAcquireDto,
  ShareAcknowledge: ShareAcknowledgeDto,
  ShareGroupHeartbeat: ShareGroupHeartbeatDto,
  ShareGroupDescribe: ShareGroupDescribeDto,
};
