import type { CoordinatorLink } from '../member/coordinator-link';
import type { ShareRequestMap } from './share-wire';

type ShareEvent = keyof ShareRequestMap;
type LooseRequest = (event: string, payload: unknown, timeoutMs: number) => Promise<unknown>;

/**
 * The share events, sent to the group's coordinator through the same link (discovery, failover,
 * reconnects) as every other group member's requests. Share-partition state lives beside the group's
 * membership in its coordinator, so leases and acknowledgements go there too.
 */
export class ShareCalls {
  constructor(private readonly link: CoordinatorLink) {}

  request<E extends ShareEvent>(
    event: E,
    payload: ShareRequestMap[E][0],
    timeoutMs: number,
  ): Promise<ShareRequestMap[E][1]> {
    // The link is typed on the protocol package's event map; the share events' types are this folder's.
    const send = this.link.request.bind(this.link) as unknown as LooseRequest;
    return send(event, payload, timeoutMs) as Promise<ShareRequestMap[E][1]>;
  }
}
