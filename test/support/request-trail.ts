import type { SocketFactory } from '@cohort/client';
import { socketIoFactory } from '@cohort/client/transport/socket-like';
import { passThroughSocket } from './pass-through-socket';

interface Sent {
  url: string;
  at: number;
  payload: string;
}

interface Answered extends Sent {
  answeredAt: number;
  answer: string;
}

/**
 * Real socket.io-client sockets that remember, for one SDK client and per request event, the last
 * request sent and the last one answered (what it carried, what came back, when): what a test prints
 * when a member stops making progress, so that the failure tells where the member was stuck (its
 * ShareAcquire unanswered while its heartbeats go on, say).
 */
export class RequestTrail {
  private readonly sent = new Map<string, Sent>();
  private readonly answered = new Map<string, Answered>();

  readonly factory: SocketFactory = (url, options) => {
    const socket = socketIoFactory(url, options);
    return passThroughSocket(socket, (event, payload, ack) => {
      const request: Sent = { url, at: Date.now(), payload: brief(payload) };
      this.sent.set(event, request);
      return socket.emit(event, payload, (response: unknown) => {
        this.answered.set(event, { ...request, answeredAt: Date.now(), answer: brief(response) });
        ack(response);
      });
    });
  };

  /** Per event: the last request sent, and the last answered with its answer, each with how long ago. */
  describe(now = Date.now()): string {
    return [...this.sent.entries()]
      .map(([event, sent]) => {
        const answered = this.answered.get(event);
        const last =
          answered === undefined
            ? 'never answered'
            : answered.at === sent.at
              ? `answered ${now - answered.answeredAt} ms ago: ${answered.answer}`
              : `unanswered; the last answered was sent ${now - answered.at} ms ago to ${answered.url}, ` +
                `${answered.payload}, and answered ${now - answered.answeredAt} ms ago: ${answered.answer}`;
        return `${event} sent ${now - sent.at} ms ago to ${sent.url}: ${sent.payload}, ${last}`;
      })
      .join('\n    ');
  }
}

/** A request or an answer as JSON, cut short. */
function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}
