import { fork } from 'node:child_process';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { CohortProcess } from './harness/cohort-process';
import { type HeapReading, HeapReader } from './harness/heap-reading';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { ms, ratio, table } from './harness/stats';
import { stopWorker } from './harness/stop-worker';

/**
 * What an idle connection costs a node in memory, beside a bare socket.io server (bench/bare-socketio-server.ts)
 * in the same run: `connections` sockets connect as the SDK connects (websocket transport, a clientId),
 * a few hundred at a time, and each server's heap and resident memory are read after a full collection
 * before, once all are connected, and once all have closed (what is left then is what closing did not
 * give back). A node's connection limit (MAX_CONNECTIONS_PER_IP, one loopback address here) is off.
 */
interface ConnectionsResult {
  connectMs: number;
  perConnection: HeapReading;
  leftPerConnection: HeapReading;
}

/** Connects `count` sockets to `url`, 200 at a time; resolves once all are connected. */
async function connectAll(url: string, count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i += 200) {
    const batch = Array.from({ length: Math.min(200, count - i) }, (_, j) => {
      const socket = io(url, {
        transports: ['websocket'],
        auth: { clientId: `bench-idle-${i + j}` },
        reconnection: false,
        forceNew: true,
      });
      return new Promise<Socket>((resolve, reject) => {
        socket.once('connect', () => resolve(socket));
        socket.once('connect_error', reject);
      });
    });
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

/**
 * Closes the sockets and reads the server once its memory has settled: the server sees each close a
 * moment after the client, and a read taken too soon counts connections it has not yet dropped.
 */
async function closeAll(sockets: Socket[], reader: HeapReader, pid: number | undefined): Promise<HeapReading> {
  sockets.forEach((socket) => socket.disconnect());
  let last = await reader.read(pid);
  for (let i = 0; i < 20; i++) {
    await new Promise((done) => setTimeout(done, 500));
    const next = await reader.read(pid);
    const settled = Math.abs(next.heapUsed - last.heapUsed) < 0.01 * last.heapUsed;
    last = next;
    if (settled) break;
  }
  return last;
}

function per(after: HeapReading, before: HeapReading, count: number): HeapReading {
  return {
    heapUsed: (after.heapUsed - before.heapUsed) / count,
    rss: (after.rss - before.rss) / count,
    external: (after.external - before.external) / count,
  };
}

async function measure(
  url: string,
  pid: number | undefined,
  reader: HeapReader,
  count: number,
): Promise<ConnectionsResult> {
  // A first few connections compile the paths and fill the caches every later one shares.
  const warm = await connectAll(url, 20);
  const before = await reader.read(pid);
  const started = performance.now();
  const sockets = await connectAll(url, count);
  const connectMs = performance.now() - started;
  const connected = await reader.read(pid);
  const closed = await closeAll(sockets, reader, pid);
  warm.forEach((socket) => socket.disconnect());
  return { connectMs, perConnection: per(connected, before, count), leftPerConnection: per(closed, before, count) };
}

async function cohortConnections(count: number): Promise<ConnectionsResult> {
  const reader = new HeapReader();
  const node = await CohortProcess.start({ ...reader.env, MAX_CONNECTIONS_PER_IP: '0' }, undefined, reader.nodeArgs);
  try {
    return await measure(node.url, node.pid, reader, count);
  } finally {
    await node.dispose();
  }
}

async function bareConnections(count: number): Promise<ConnectionsResult> {
  const reader = new HeapReader();
  const server = fork(join(__dirname, 'bare-socketio-server.ts'), [], {
    execArgv: ['--import', 'tsx', ...reader.nodeArgs],
    env: { ...process.env, ...reader.env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      server.once('message', (message: { port: number }) => resolve(message.port));
      server.once('exit', (code) => reject(new Error(`the bare socket.io server exited with ${code}`)));
    });
    return await measure(`http://127.0.0.1:${port}`, server.pid, reader, count);
  } finally {
    await stopWorker(server);
  }
}

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

export const connectionsSection: BenchSection = {
  name: 'connections',
  summary:
    "an idle connection's memory (heap and RSS after a full collection) and connect time, vs a bare socket.io server",
  needsBuild: true,
  usage: '[connections N (default 5,000 × BENCH_SCALE)]',
  async run(args) {
    const count = args[0] === undefined ? scaled(5_000, 200) : Number(args[0]);
    if (!Number.isInteger(count) || count < 1)
      throw new Error(`connections must be a positive integer, not "${args[0]}"`);
    console.log(
      `${count} idle sockets as the SDK connects them (websocket, a clientId), 200 at a time; memory read after a full collection (node --expose-gc, read on a signal)`,
    );
    const cohort = await attempt('Cohort node', () => cohortConnections(count));
    const bare = await attempt('bare socket.io server', () => bareConnections(count));
    const cell = (r: ConnectionsResult | null, read: (r: ConnectionsResult) => string) => (r ? read(r) : 'n/a');
    const vs = (read: (r: ConnectionsResult) => number) => (cohort && bare ? ratio(read(cohort), read(bare)) : 'n/a');
    table(
      ['per connection', 'Cohort node', 'bare socket.io', 'Cohort / bare'],
      [
        [
          'heap',
          cell(cohort, (r) => kib(r.perConnection.heapUsed)),
          cell(bare, (r) => kib(r.perConnection.heapUsed)),
          vs((r) => r.perConnection.heapUsed),
        ],
        [
          'resident memory (RSS)',
          cell(cohort, (r) => kib(r.perConnection.rss)),
          cell(bare, (r) => kib(r.perConnection.rss)),
          vs((r) => r.perConnection.rss),
        ],
        [
          'heap left once all closed',
          cell(cohort, (r) => kib(r.leftPerConnection.heapUsed)),
          cell(bare, (r) => kib(r.leftPerConnection.heapUsed)),
          '',
        ],
        [
          `time to connect ${count}`,
          cell(cohort, (r) => ms(r.connectMs)),
          cell(bare, (r) => ms(r.connectMs)),
          vs((r) => r.connectMs),
        ],
      ],
    );
  },
};
