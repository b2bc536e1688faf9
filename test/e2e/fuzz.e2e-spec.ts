import type { INestApplication } from '@nestjs/common';
import { formatReport } from '../fuzz/fuzz-runner';
import { fuzzOnlyCases, fuzzSeed, fuzzSession } from '../fuzz/fuzz-session';
import { SocketPushSink } from '../../src/gateway/socket-push-sink';
import { appPerFile } from '../support/app-per-file';

// A bounded run: a few thousand requests against one node; `npm run fuzz` runs 100,000.
jest.setTimeout(300_000);

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3_000);
// No new case starts after this, so that on a machine too loaded to send them all within the test's
// timeout the run still ends with its report (which then says it stopped at the time budget): the
// cases in flight get the runner's 30 s answer bound, the canary check comes after.
const BUDGET_MS = 240_000;
/**
 * `npm test` fuzzes one fixed seed, so that CI gives the same cases on every run; new seeds are for
 * `npm run fuzz` and `FUZZ_SEED=<n>`. This one reached 3,006 levels of nesting, the case that used to
 * overflow the fuzzer's own encoders.
 */
const CI_SEED = 110_488_163;

interface EngineConnection {
  id: string;
  on(event: 'close', listener: (reason: string) => void): void;
}

/**
 * engine.io's own reason for every connection it closes, by session id: the fuzzer shares this
 * process with the node, so it can tell a ping timeout from a close the node decided. (The socket.io
 * server is reached through the push sink, the one provider that holds it.)
 */
function engineCloseReasons(app: INestApplication): (sid: string) => string | undefined {
  const io = (
    app.get(SocketPushSink) as unknown as {
      server: { engine: { on(event: 'connection', listener: (conn: EngineConnection) => void): void } } | null;
    }
  ).server;
  if (!io) throw new Error('the socket.io server is not attached to the push sink');
  const reasons = new Map<string, string>();
  io.engine.on('connection', (conn) => conn.on('close', (reason) => reasons.set(conn.id, reason)));
  return (sid) => reasons.get(sid);
}

/**
 * Seeded fuzzing over socket.io, raw websocket frames and REST (test/fuzz/README.md): no request may
 * crash the node, get -1 or a 5xx, go unanswered, or change a group it does not belong to.
 */
describe('fuzz (e2e)', () => {
  const app = appPerFile({ topics: { 'fz-t': 4 } });

  it(`answers ${REQUESTS} fuzzed requests without an internal error, a missing ack or a change to the canary group`, async () => {
    const seed = process.env.FUZZ_SEED ? fuzzSeed() : CI_SEED;
    // Fewer requests in flight than `npm run fuzz`: the fuzzer shares this process (and a CI machine's
    // cores) with the node, and each answer must come within the runner's 30 s bound.
    const result = await fuzzSession(app.url, seed, REQUESTS, fuzzOnlyCases(), {
      concurrency: 16,
      closeReason: engineCloseReasons(app.running.app),
      deadline: Date.now() + BUDGET_MS,
    });
    const summary = formatReport(
      result.report,
      'FUZZ_SEED=<seed> FUZZ_CASES=<cases> npx jest test/e2e/fuzz.e2e-spec.ts',
    );
    // The seed is printed on every run, so that a failure seen only in a CI log can be replayed.
    process.stdout.write(`${summary}\n`);
    // Every case is sent: the fuzzer's encoders do not recurse, so no case is too deep for them.
    expect({ seed, failures: result.report.failures, unsendable: result.report.sent.unsendable }).toEqual({
      seed,
      failures: [],
      unsendable: 0,
    });
    expect(result.alive).toBe(true);
    expect(result.canaryAfter).toEqual(result.canaryBefore);
  });
});
