export type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '@cohort/protocol';

/** Who sent the request (the connection's client id and host), recorded with the member. */
export interface ConsumerRequestContext {
  clientId: string;
  clientHost: string;
  /**
   * The caller as the ACLs know it (principal and address) when they are on: a member's
   * `subscribedTopicRegex` gives it only the topics this caller may DESCRIBE. Without it (ACLs on), the
   * member's pattern gives it nothing.
   */
  aclCaller?: { principal: string; host: string };
  /**
   * Who a joining member, or one whose subscription grows, counts against (MAX_MEMBERS_PER_PRINCIPAL,
   * MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL); absent for callers that are not counted (super users).
   */
  principal?: string;
}
