import { runFuzz } from '../fuzz/fuzz-runner';
import { appPerFile } from '../support/app-per-file';

// The handshake alone can take seconds on a loaded machine; nothing here asserts a duration.
jest.setTimeout(60_000);

/**
 * Three raw frames of seed 20261203 that the 100,000-request run sent on one connection (cases 40691,
 * 40692 and 40889): `41` leaves the default namespace; `42230["__proto__",…]`, written right after it,
 * is read by the node in the same chunk, and socket.io defers a socket's packets to the next tick, so
 * the socket is still found for both and the DISCONNECT is applied first — yet the request guard, a
 * socket middleware, answers the unknown event of the socket that has just left; the FindCoordinator
 * frame then finds no namespace, and socket.io closes the connection (websocket code 1005, engine.io's
 * `forced close`), as it closes any connection that sends to a namespace it has not joined.
 */
const SEED = 20_261_203;
const LEAVE_THEN_ANSWERED_THEN_CLOSED = [40_691, 40_692, 40_889];

describe('fuzzer: a raw connection that left its namespace (e2e)', () => {
  const app = appPerFile({ topics: { 'fz-t': 4 } });

  it('counts a close after `41` apart even when a frame sent after it was answered, instead of failing the node', async () => {
    const report = await runFuzz({
      url: app.url,
      seed: SEED,
      requests: 0,
      only: LEAVE_THEN_ANSWERED_THEN_CLOSED,
      // One lane: the three frames go out in this order on one connection, the first two in one turn.
      concurrency: 1,
      targets: { canaryGroup: 'canary', canaryTopic: 'canary-t', canaryGeneration: 1 },
    });
    expect(report.sent.frame).toBe(3);
    expect(report.failures).toEqual([]);
    // The frame after `41` is not the node's to answer, wherever the close fell.
    expect(report.rawUnattributable).toBe(1);
  });
});
