import Redis from 'ioredis';
import type { Socket } from 'socket.io-client';
import { connect, request } from '../test/support/socket-client';
import { CohortProcess } from './harness/cohort-process';
import { percentile } from './harness/stats';

/**
 * Issue 2, benchmark 2: OffsetCommit throughput and latency from concurrent sockets, each a simple
 * consumer (generation -1) of its own group committing one partition in a closed loop: a request
 * leaves only when the previous answer arrived, so latency is what a committing consumer waits for.
 * The baseline is the same writes as HSETs to the local Redis, from the same harness.
 */

export interface LoadResult {
  requests: number;
  seconds: number;
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
}

async function closedLoops(loops: number, durationMs: number, once: (loop: number, sequence: number) => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      for (let sequence = 0; Date.now() < deadline; sequence++) {
        const sent = process.hrtime.bigint();
        const ok = await once(loop, sequence);
        latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
        if (!ok) errors++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, seconds, throughput: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors };
}

export async function cohortCommits(flushPolicy: 'always' | 'replicated', sockets: number, durationMs: number): Promise<LoadResult> {
  const node = await CohortProcess.start({ LOG_FLUSH_POLICY: flushPolicy });
  const clients: Socket[] = [];
  try {
    await node.post('/v1/topics', { name: 'commits', partitions: sockets });
    for (let i = 0; i < sockets; i++) clients.push(await connect(node.url, { clientId: `bench-${i}` }));
    const commit = async (loop: number, sequence: number) => {
      const response = await request<{ errorCode: number; topics: { partitions: { errorCode: number }[] }[] }>(clients[loop], 'OffsetCommit', {
        groupId: `bench-commit-${loop}`,
        generationId: -1,
        memberId: '',
        topics: [{ name: 'commits', partitions: [{ partitionIndex: loop, committedOffset: sequence }] }],
      });
      return response.errorCode === 0 && response.topics[0].partitions[0].errorCode === 0;
    };
    await closedLoops(sockets, 500, commit); // warm-up: JIT, groups created, segments open
    return await closedLoops(sockets, durationMs, commit);
  } finally {
    clients.forEach((c) => c.disconnect());
    await node.dispose();
  }
}

export async function redisHsets(connections: number, durationMs: number): Promise<LoadResult> {
  const prefix = `cohort-bench:${process.pid}:${Date.now()}:`;
  const clients = Array.from({ length: connections }, () => new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 }));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    const hset = async (loop: number, sequence: number) => (await clients[loop].hset(`${prefix}bench-commit-${loop}`, `commits:${loop}`, String(sequence))) >= 0;
    await closedLoops(connections, 500, hset);
    return await closedLoops(connections, durationMs, hset);
  } finally {
    const keys = await clients[0].keys(`${prefix}*`).catch(() => [] as string[]);
    if (keys.length > 0) await clients[0].del(...keys);
    clients.forEach((c) => c.disconnect());
  }
}
