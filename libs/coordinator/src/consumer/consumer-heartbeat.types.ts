export type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '@cohort/protocol';

/** Who sent the request (the connection's client id and host), recorded with the member. */
export interface ConsumerRequestContext {
  clientId: string;
  clientHost: string;
}
