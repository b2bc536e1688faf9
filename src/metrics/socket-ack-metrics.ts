import { isRequestEvent } from '@cohort/protocol';
import type { CohortMetrics } from './cohort-metrics';

/**
 * socket.io middleware that counts and times every request when its acknowledgement leaves, by event
 * and the response's errorCode — whether the coordinator, the validation or the exception filter
 * answered. It wraps the ack callback instead of adding a Nest interceptor, which would cost every
 * request an Observable chain. Unknown events are answered too (INVALID_REQUEST) but recorded under
 * one `unknown` label, so a client inventing event names cannot inflate the label set.
 */
export function measureAcks(metrics: CohortMetrics): (packet: unknown[], next: (error?: Error) => void) => void {
  return (packet, next) => {
    const last = packet.length - 1;
    const ack = packet[last];
    if (last > 0 && typeof ack === 'function') {
      const event = isRequestEvent(packet[0]) ? packet[0] : 'unknown';
      // Monotonic milliseconds as a double: no BigInt allocated per request, twice, as hrtime.bigint() did.
      const started = performance.now();
      packet[last] = (response: unknown) => {
        const code = (response as { errorCode?: unknown } | null)?.errorCode;
        metrics.requestAnswered(
          'socket.io',
          event,
          typeof code === 'number' ? code : 0,
          (performance.now() - started) / 1000,
        );
        (ack as (response: unknown) => void)(response);
      };
    }
    next();
  };
}
