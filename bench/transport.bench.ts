import { fork, type ChildProcess } from 'node:child_process';
import { isDeepStrictEqual } from 'node:util';
import { NetworkTransport, RealClock } from '@cohort/replication';
import { HttpRpcClient, type HttpCodec } from './transport-http-candidate';
import { fetchRequest, fetchResponse, PAYLOADS } from './transport-payloads';

/**
 * Chooses the network transport's protocol by measurement (`npx tsx bench/transport.bench.ts`).
 * Each candidate's server runs in a child process (as a leader does), the client here; both on loopback.
 * For each payload: round-trip latency of sequential fetches (p50, p99) and throughput with 16 fetches
 * in flight. Every response is checked byte for byte against the expected one. The candidates take
 * turns over ROUNDS rounds and each figure is the median of its rounds, so that load from other
 * processes on a shared machine hits every candidate alike. Figures are printed beside the
 * HTTP/JSON/base64 baseline as ratios (machines differ; ratios travel).
 */
const CANDIDATES = ['tcp-frames', 'http-json-blobs', 'http-json-base64'] as const;
type Candidate = (typeof CANDIDATES)[number];
const BASELINE: Candidate = 'http-json-base64';
const CONCURRENCY = 16;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Client {
  fetch(body: unknown): Promise<unknown>;
  close(): Promise<void>;
}

interface Result {
  p50: number;
  p99: number;
  perSecond: number;
  mbPerSecond: number;
}

async function startServer(candidate: Candidate): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(require.resolve('./transport-bench-server.ts'), [candidate], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  return { child, port };
}

async function connect(candidate: Candidate, port: number): Promise<Client> {
  if (candidate === 'tcp-frames') {
    const transport = await NetworkTransport.start({ nodeId: 2, clock: new RealClock() });
    const to = { nodeId: 1, endpoint: `tcp://127.0.0.1:${port}` };
    return { fetch: (body) => transport.send(to, 'fetch', body as never, 30_000), close: () => transport.close() };
  }
  const http = new HttpRpcClient(port, candidate.replace('http-', '') as HttpCodec);
  return { fetch: (body) => http.send('fetch', body), close: async () => http.close() };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function measure(client: Client, records: number, responseBytes: number): Promise<Result> {
  const request = fetchRequest();
  request.partitions[0].maxRecords = records; // selects the response size on the server
  const expected = fetchResponse(records);
  const sequential = records >= 1_000 ? 30 : 500;
  for (let i = 0; i < sequential / 5; i++) await client.fetch(request); // warm-up (JIT, connections)
  if (!isDeepStrictEqual(await client.fetch(request), expected))
    throw new Error('response differs from what the server sent');
  const latencies: number[] = [];
  for (let i = 0; i < sequential; i++) {
    const start = process.hrtime.bigint();
    await client.fetch(request);
    latencies.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  latencies.sort((a, b) => a - b);
  const total = records >= 1_000 ? 32 : 2_000;
  let sent = 0;
  const start = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < total) {
        sent++;
        await client.fetch(request);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    perSecond: total / seconds,
    mbPerSecond: (total * responseBytes) / seconds / 1e6,
  };
}

async function main(): Promise<void> {
  const rounds = new Map<string, Result[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const candidate of CANDIDATES) {
      const { child, port } = await startServer(candidate);
      const client = await connect(candidate, port);
      for (const payload of PAYLOADS) {
        const bytes = fetchResponse(payload.records).partitions.reduce(
          (n, p) => n + p.batches.reduce((m, b) => m + b.records.length * 144, 0),
          0,
        );
        const key = `${candidate}|${payload.name}`;
        rounds.set(key, [...(rounds.get(key) ?? []), await measure(client, payload.records, bytes)]);
      }
      await client.close();
      child.kill();
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const results = new Map<string, Result>();
  for (const [key, list] of rounds) {
    results.set(key, {
      p50: median(list.map((r) => r.p50)),
      p99: median(list.map((r) => r.p99)),
      perSecond: median(list.map((r) => r.perSecond)),
      mbPerSecond: median(list.map((r) => r.mbPerSecond)),
    });
  }
  console.log(
    `transport round trips on loopback, server in another process, ${CONCURRENCY} in flight for throughput; median of ${ROUNDS} interleaved rounds; ratio = candidate / ${BASELINE}\n`,
  );
  for (const payload of PAYLOADS) {
    console.log(payload.name);
    const base = results.get(`${BASELINE}|${payload.name}`)!;
    for (const candidate of CANDIDATES) {
      const r = results.get(`${candidate}|${payload.name}`)!;
      console.log(
        `  ${candidate.padEnd(17)} p50 ${r.p50.toFixed(0).padStart(6)} µs (${(r.p50 / base.p50).toFixed(2)}x)` +
          `  p99 ${r.p99.toFixed(0).padStart(6)} µs (${(r.p99 / base.p99).toFixed(2)}x)` +
          `  ${r.perSecond.toFixed(0).padStart(6)} fetches/s (${(r.perSecond / base.perSecond).toFixed(2)}x)` +
          (r.mbPerSecond > 0 ? `  ${r.mbPerSecond.toFixed(1)} MB/s of records` : ''),
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
