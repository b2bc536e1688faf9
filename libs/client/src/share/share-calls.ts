import type { RequestResponseMap } from '@cohort/protocol';
import type { CoordinatorLink } from '../member/coordinator-link';

type ShareEvent = 'ShareGroupHeartbeat' | 'ShareAcquire' | 'ShareAcknowledge';

/**
 * The share events, sent to the group's coordinator through the same link (discovery, failover,
 * reconnects) as every other group member's requests. Share-partition state lives beside the group's
 * membership in its coordinator, so leases and acknowledgements go there too.
 */
export class ShareCalls {
  constructor(private readonly link: CoordinatorLink) {}

  request<E extends ShareEvent>(
    event: E,
    payload: RequestResponseMap[E][0],
    timeoutMs: number,
  ): Promise<RequestResponseMap[E][1]> {
    return this.link.request(event, payload, timeoutMs);
  }
}
