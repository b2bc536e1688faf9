import { request as httpRequestRaw } from 'node:http';
import { io, type Socket } from 'socket.io-client';
import { jsonText } from './json-text';
import { type FrameCase, frameCase, mayLeaveNamespace } from './raw-frame-cases';
import { RawConnection } from './raw-connection';
import { discoverRoutes, type RestCase, restCase } from './rest-cases';
import { SeededRandom } from './seeded-random';
import { type FuzzTargets, type SocketCase, socketCase } from './socket-cases';
import { iterativeParser } from './socket-encoder';

export interface FuzzOptions {
  url: string;
  seed: number;
  requests: number;
  targets: FuzzTargets;
  /** Requests in flight at once (each with its own raw connection; socket.io sockets are shared by up to four). */
  concurrency?: number;
  /** Every ack and every REST answer must come within this bound. */
  answerTimeoutMs?: number;
  /** Replays only these case indexes (from a failure's report). */
  only?: number[];
  /** The node's MAX_PAYLOAD_BYTES: larger socket payloads are not sent (socket.io closes the connection by design). */
  maxPayloadBytes?: number;
  /** Wall-clock budget: no new case starts after it (the report says how many were run). */
  deadline?: number;
  /** Called every `progressEvery` cases with the number started so far. */
  onProgress?: (started: number, report: FuzzReport) => void;
  progressEvery?: number;
  /**
   * The server's own reason for closing an engine.io connection, by session id (`ping timeout`,
   * `parse error`, `forced close`, ...), when the fuzzer runs in the node's process and can ask.
   */
  closeReason?: (sid: string) => string | undefined;
}

export interface FuzzFailure {
  index: number;
  kind: 'socket' | 'frame' | 'rest';
  problem: string;
  request: string;
}

export interface FuzzReport {
  seed: number;
  /** `unsendable`: cases the fuzzer overflowed its own stack on before anything was sent (0 since its encoders stopped recursing). */
  sent: { socket: number; frame: number; rest: number; skippedOversize: number; unsendable: number };
  socketCodes: Record<string, number>;
  restStatuses: Record<string, number>;
  rawConnectionsClosedByServer: number;
  /** Event frames left unanswered on a connection an earlier unanswered frame (or a `41`, even answered after) may have closed or detached. */
  rawUnattributable: number;
  /**
   * Frames whose clean connection the server closed by an engine.io ping timeout while they waited
   * (the process stalled past `pingTimeout`), sent once more on a fresh connection, which answered.
   */
  rawResent: number;
  /** The slowest answers, with their cases: where the node spent its time. */
  slowest: { index: number; ms: number; request: string }[];
  slowestAnswerMs: number;
  failures: FuzzFailure[];
  elapsedMs: number;
  /** The deadline came before every case had been sent. */
  stoppedAtDeadline?: boolean;
}

type Kind = FuzzFailure['kind'];

/** Per worker: its socket.io socket and its raw connection, reopened when the server closes one. */
interface Lane {
  socket: Socket | null;
  raw: RawConnection | null;
  /** A frame without an ack was sent since the last answer: a close now may be that frame's doing. */
  rawUnconfirmed: boolean;
  /**
   * A frame that may have left the default namespace (`41…`) was sent on this connection: from then on
   * no close is the node's doing, even after a later frame was answered (see runFrame).
   */
  rawLeftNamespace: boolean;
  nextAckId: number;
}

/**
 * The fuzzer: `requests` cases over socket.io, raw websocket frames and REST, each generated from
 * (seed, index) alone, checked for the invariants of hostile input — an answer for every request that
 * asks for one, within the bound; no -1 UNKNOWN_SERVER_ERROR anywhere in an ack; no 5xx; error bodies in
 * the REST error shape. Liveness of the node and the canary group are the caller's to check around it.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = Date.now();
  const timeout = options.answerTimeoutMs ?? 30_000;
  const routes = await discoverRoutes(options.url);
  const report: FuzzReport = {
    seed: options.seed,
    sent: { socket: 0, frame: 0, rest: 0, skippedOversize: 0, unsendable: 0 },
    socketCodes: {},
    restStatuses: {},
    rawConnectionsClosedByServer: 0,
    rawUnattributable: 0,
    rawResent: 0,
    slowest: [],
    slowestAnswerMs: 0,
    failures: [],
    elapsedMs: 0,
  };
  const indexes = options.only ?? Array.from({ length: options.requests }, (_, i) => i);
  let cursor = 0;
  const lanes: Lane[] = Array.from({ length: options.concurrency ?? 32 }, () => ({
    socket: null,
    raw: null,
    rawUnconfirmed: false,
    rawLeftNamespace: false,
    nextAckId: 1,
  }));
  const fail = (index: number, kind: Kind, problem: string, request: unknown): void => {
    report.failures.push({ index, kind, problem, request: describe(request) });
  };
  const answered = (since: number, index: number, request: unknown): void => {
    const ms = Date.now() - since;
    report.slowestAnswerMs = Math.max(report.slowestAnswerMs, ms);
    if (report.slowest.length < 5 || ms > report.slowest[report.slowest.length - 1].ms) {
      report.slowest.push({ index, ms, request: describe(request).slice(0, 200) });
      report.slowest.sort((a, b) => b.ms - a.ms);
      report.slowest.length = Math.min(report.slowest.length, 5);
    }
  };

  async function runSocket(lane: Lane, index: number, c: SocketCase): Promise<void> {
    const size = c.payload === undefined ? 0 : (jsonText(c.payload)?.length ?? 0);
    if (size > (options.maxPayloadBytes ?? 1_048_576) - 1_024) return void report.sent.skippedOversize++;
    if (!lane.socket || !lane.socket.connected) {
      lane.socket?.disconnect();
      lane.socket = await connectSocket(options.url, timeout);
    }
    const socket = lane.socket;
    report.sent.socket++;
    const args = c.payload === undefined ? [c.event] : [c.event, c.payload];
    if (!c.withAck) return void socket.emit(...(args as [string, ...unknown[]]));
    const since = Date.now();
    try {
      const response: unknown = await socket.timeout(timeout).emitWithAck(...(args as [string, ...unknown[]]));
      answered(since, index, c);
      const code = (response as { errorCode?: unknown } | null)?.errorCode;
      report.socketCodes[String(code)] = (report.socketCodes[String(code)] ?? 0) + 1;
      const problem = ackProblem(response);
      if (problem) fail(index, 'socket', problem, c);
    } catch {
      fail(
        index,
        'socket',
        socket.connected ? `no ack within ${timeout} ms` : 'the server closed a socket.io connection',
        c,
      );
    }
  }

  async function runFrame(lane: Lane, index: number, c: FrameCase): Promise<void> {
    if (!lane.raw || lane.raw.closed) {
      if (lane.raw?.closed) report.rawConnectionsClosedByServer++;
      lane.raw = await RawConnection.open(options.url, timeout);
      lane.rawUnconfirmed = false;
      lane.rawLeftNamespace = false;
    }
    const raw = lane.raw;
    report.sent.frame++;
    raw.send(c.frame);
    if (mayLeaveNamespace(c.frame)) lane.rawLeftNamespace = true;
    // socket.io closes a connection whose frame is over maxHttpBufferSize, by design: no ack is due.
    if (c.ackId === undefined || c.frame.length > (options.maxPayloadBytes ?? 1_048_576))
      return void (lane.rawUnconfirmed = true);
    const since = Date.now();
    const outcome = await raw.ack(c.ackId, timeout);
    if (outcome !== 'closed' && outcome !== 'timeout') {
      answered(since, index, c.frame);
      lane.rawUnconfirmed = false;
      const problem = ackProblem(outcome.response);
      if (problem) fail(index, 'frame', problem, c.frame);
      return;
    }
    // After an earlier unanswered frame the connection may rightly be closed or deaf: a malformed
    // frame closes it, `41` leaves the namespace, a BINARY_EVENT header waits for its attachments.
    // Only a connection that has answered everything sent before must answer this frame. An answer
    // does not undo a `41`: socket.io defers a socket's packets to the next tick, so a frame the node
    // read in the same chunk as the `41` still found the socket, and the request guard (a socket
    // middleware) answered it after the DISCONNECT had been applied; the next frame then found no
    // namespace and socket.io closed the connection (1005; seed 20261203, cases 40691, 40692, 40889).
    raw.close();
    lane.raw = null;
    if (lane.rawUnconfirmed || lane.rawLeftNamespace) return void report.rawUnattributable++;
    if (outcome === 'timeout') return fail(index, 'frame', `no ack within ${timeout} ms`, c.frame);
    // The one close that is not the frame's doing: an engine.io ping timeout, when the process stalled
    // between the server's ping and its reading of the pong. The server's reason says so when the
    // fuzzer can ask (the bounded run shares the node's process); otherwise the heartbeat's timing
    // tells whether it could have been one. Any other close under a well-formed frame fails.
    await new Promise((resolve) => setImmediate(resolve));
    const reason = raw.sid === undefined ? undefined : options.closeReason?.(raw.sid);
    if (reason !== undefined ? reason !== 'ping timeout' : !raw.closeMayBePingTimeout) {
      return fail(
        index,
        'frame',
        `the server closed a clean connection instead of answering (${reason ?? `${raw.closeDescription}, too early for a ping timeout`})`,
        c.frame,
      );
    }
    // Then the same frame must be answered on a fresh connection.
    const fresh = (lane.raw = await RawConnection.open(options.url, timeout));
    fresh.send(c.frame);
    const again = await fresh.ack(c.ackId, timeout);
    if (again === 'closed' || again === 'timeout') {
      fresh.close();
      lane.raw = null;
      return fail(
        index,
        'frame',
        again === 'timeout'
          ? `no ack within ${timeout} ms on a fresh connection`
          : 'the server closed the connection instead of answering, twice',
        c.frame,
      );
    }
    report.rawResent++;
    answered(since, index, c.frame);
    const problem = ackProblem(again.response);
    if (problem) fail(index, 'frame', problem, c.frame);
  }

  async function runRest(index: number, c: RestCase): Promise<void> {
    report.sent.rest++;
    const since = Date.now();
    let status = 0;
    let text = '';
    try {
      ({ status, text } = await httpRequest(options.url, c, timeout));
    } catch (error) {
      return fail(index, 'rest', `no answer: ${error instanceof Error ? error.message : String(error)}`, c);
    }
    answered(since, index, c);
    report.restStatuses[String(status)] = (report.restStatuses[String(status)] ?? 0) + 1;
    if (status >= 500) return fail(index, 'rest', `HTTP ${status}: ${text.slice(0, 300)}`, c);
    if (status >= 400 && c.method !== 'HEAD') {
      const body = parseJson(text) as
        { statusCode?: unknown; errorCode?: unknown; error?: unknown; message?: unknown } | undefined;
      if (
        !body ||
        body.statusCode !== status ||
        typeof body.errorCode !== 'number' ||
        typeof body.error !== 'string' ||
        typeof body.message !== 'string'
      ) {
        fail(index, 'rest', `HTTP ${status} without the REST error shape: ${text.slice(0, 300)}`, c);
      } else if (body.errorCode === -1) fail(index, 'rest', `UNKNOWN_SERVER_ERROR: ${body.message}`, c);
    }
  }

  async function worker(lane: Lane): Promise<void> {
    while (cursor < indexes.length && Date.now() < (options.deadline ?? Infinity)) {
      const index = indexes[cursor++];
      if (options.onProgress && cursor % (options.progressEvery ?? 5_000) === 0) options.onProgress(cursor, report);
      const random = new SeededRandom(options.seed, index);
      const kind = pickKind(random);
      try {
        if (kind === 'socket') await runSocket(lane, index, socketCase(random, options.targets));
        else if (kind === 'frame') await runFrame(lane, index, frameCase(random, lane.nextAckId++));
        else await runRest(index, restCase(random, routes, options.targets));
      } catch (error) {
        // The fuzzer's encoders do not recurse (json-text.ts, socket-encoder.ts): a stack overflow here is
        // the fuzzer's own defect, counted apart (nothing reached the node) and failing the run.
        if (error instanceof RangeError && /call stack/.test(error.message)) report.sent.unsendable++;
        else
          fail(
            index,
            kind,
            `the fuzzer could not send it: ${error instanceof Error ? error.message : String(error)}`,
            kind,
          );
      }
    }
  }

  try {
    await Promise.all(lanes.map((lane) => worker(lane)));
  } finally {
    for (const lane of lanes) {
      lane.socket?.disconnect();
      lane.raw?.close();
    }
  }
  report.failures.sort((a, b) => a.index - b.index);
  report.elapsedMs = Date.now() - started;
  report.stoppedAtDeadline = cursor < indexes.length;
  return report;
}

export function pickKind(random: SeededRandom): Kind {
  return random.weighted<Kind>([
    [6, 'socket'],
    [2, 'frame'],
    [2, 'rest'],
  ]);
}

async function connectSocket(url: string, timeoutMs: number): Promise<Socket> {
  const socket = io(url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
    timeout: timeoutMs,
    auth: { clientId: 'fuzzer' },
    parser: iterativeParser,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  return socket;
}

/** Why an ack breaks the rules: not a response object, or -1 anywhere in it (top level or per partition). */
function ackProblem(response: unknown): string | null {
  if (
    response === null ||
    typeof response !== 'object' ||
    typeof (response as { errorCode?: unknown }).errorCode !== 'number'
  ) {
    return `the ack is not a response: ${describe(response)}`;
  }
  const stack: unknown[] = [response];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if ((value as { errorCode?: unknown }).errorCode === -1)
      return `UNKNOWN_SERVER_ERROR in the ack: ${describe(response)}`;
    stack.push(...Object.values(value));
  }
  return null;
}

/**
 * One REST request on a connection of its own (no keep-alive pool): a pooled connection the node
 * closed as idle could otherwise be reused by a starved client and fail before reaching the node.
 */
function httpRequest(base: string, c: RestCase, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const body = c.body === undefined ? undefined : Buffer.from(c.body);
    const req = httpRequestRaw(
      {
        host: url.hostname,
        port: url.port,
        method: c.method,
        path: c.path,
        agent: false,
        headers: { ...c.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describe(value: unknown): string {
  let text: string;
  try {
    text =
      typeof value === 'string'
        ? value
        : Buffer.isBuffer(value)
          ? `<binary ${value.toString('hex')}>`
          : (jsonText(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 500 ? `${text.slice(0, 500)}… (${text.length} characters)` : text;
}

/** Prints a report: figures, then each failure with how to replay it. */
export function formatReport(report: FuzzReport, replayCommand: string): string {
  const lines = [
    `fuzz seed ${report.seed}: ${report.sent.socket + report.sent.frame + report.sent.rest} requests (socket.io ${report.sent.socket}, raw frames ${report.sent.frame}, REST ${report.sent.rest}; ${report.sent.skippedOversize} over the payload limit not sent, ${report.sent.unsendable} too deep for the fuzzer's own encoders) in ${(report.elapsedMs / 1000).toFixed(1)} s`,
    `  socket.io ack error codes: ${JSON.stringify(report.socketCodes)}`,
    `  REST statuses: ${JSON.stringify(report.restStatuses)}`,
    `  raw connections the server closed (malformed frames): ${report.rawConnectionsClosedByServer}; event frames unanswered after an earlier unanswered frame or a \`41\` (not counted): ${report.rawUnattributable}; frames whose connection a ping timeout closed, answered when sent again on a fresh connection: ${report.rawResent}; slowest answer ${report.slowestAnswerMs} ms`,
    ...report.slowest.map((s) => `    ${s.ms} ms: case ${s.index} ${s.request}`),
    `  failures: ${report.failures.length}${report.stoppedAtDeadline ? ' (stopped at the time budget before the last cases)' : ''}`,
  ];
  for (const failure of report.failures.slice(0, 20)) {
    lines.push(
      `  - case ${failure.index} (${failure.kind}): ${failure.problem}\n      request: ${failure.request}\n      replay: ${replayCommand.replace('<seed>', String(report.seed)).replace('<cases>', String(failure.index))}`,
    );
  }
  return lines.join('\n');
}
