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
}
