// Public surface of @cohort/client. Everything an application imports comes from here.
export { CohortClient, type CohortClientOptions } from './cohort-client';
export { CohortMember } from './member/cohort-member';
export type { MemberOptions } from './member/member-options';
export { ConsumerGroupMember } from './member/consumer/consumer-group-member';
export type { ConsumerMemberOptions } from './member/consumer/consumer-member-options';
export type {
  MemberState,
  MemberEvents,
  CommittedOffset,
  ProcessedOffset,
  JoinedEvent,
  AssignedEvent,
  RevokedEvent,
  LostEvent,
  RebalancingEvent,
} from './member/member-events';
export { ShareMember } from './share/share-member';
export type { ShareMemberOptions } from './share/share-options';
export type {
  Lease,
  Acknowledgement,
  ShareMemberState,
  ShareMemberEvents,
  ShareJoinedEvent,
  ShareAssignedEvent,
  LeasesLostEvent,
  AcknowledgedEvent,
} from './share/share-events';
export { CohortError } from './errors/cohort-error';
export type { WireErrorFields, RestErrorBody } from './errors/cohort-error';
export type { RetryOptions } from './runtime/backoff';
export type { Timers } from './runtime/timers';
export type { SocketLike, SocketFactory, SocketFactoryOptions } from './transport/socket-like';
export { CohortAdmin, type AclAdmin, type AdminOptions } from './admin/cohort-admin';
export type { PartitionAssignor, RebalanceProtocol, ClusterView, MemberSubscription } from '@cohort/assignors';
export type { TopicPartitions, Subscription, MemberAssignment, MetadataNode } from '@cohort/protocol';
