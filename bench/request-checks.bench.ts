/**
 * The hot path's request checks, in one process: Heartbeat and OffsetCommit payloads (as a socket
 * delivers them, JSON-parsed) through the checks compiled from the DTOs (src/gateway/contract) and
 * through the hand-written checks they replaced (bench/baselines), rounds alternating, and through
 * the DTO's class-validator pipe for scale. Prints ns per request and the ratio compiled / hand-written
 * (below 1.00x: the compiled checks are faster). Section `request-checks` of `npm run bench`.
 */
import 'reflect-metadata';
import type { ArgumentMetadata, Type } from '@nestjs/common';
import { KafkaValidationPipe } from '../src/common/kafka-validation.pipe';
import { compiledAccept } from '../src/gateway/contract/socket-contracts';
import { HeartbeatDto } from '../src/gateway/dto/heartbeat.dto';
import { OffsetCommitDto } from '../src/gateway/dto/offset-commit.dto';
import { acceptHeartbeat, acceptOffsetCommit } from './baselines/hand-written-checks';
import { scaled } from './harness/scale';
import type { BenchSection } from './harness/section';
import { median, ratio, table } from './harness/stats';

const ROUNDS = 15;
const PER_ROUND = scaled(200_000, 1000);
const PIPE_REQUESTS = scaled(20_000, 100);

/** Distinct payloads, so no check sees one object over and over. */
function payloads(make: (i: number) => unknown): unknown[] {
  return Array.from({ length: 1024 }, (_, i) => JSON.parse(JSON.stringify(make(i))) as unknown);
}

const heartbeats = payloads((i) => ({
  groupId: `orders-${i % 16}`,
  generationId: 7 + (i % 3),
  memberId: `consumer-${i}-6f1c2a9e-4b1d-4f7e-9a43-${String(i).padStart(12, '0')}`,
  groupInstanceId: i % 2 === 0 ? null : `instance-${i}`,
}));
const commits = payloads((i) => ({
  groupId: `orders-${i % 16}`,
  generationId: 7,
  memberId: `consumer-${i}-6f1c2a9e-4b1d-4f7e-9a43-${String(i).padStart(12, '0')}`,
  topics: [
    {
      name: 'orders',
      partitions: [0, 1, 2, 3].map((p) => ({ partitionIndex: p, committedOffset: 1_000_000 + i * 10 + p })),
    },
  ],
}));

/** ns per call of `check` over `inputs`, `count` calls; the results are kept so nothing is optimised away. */
function timeChecks(check: (payload: unknown) => unknown, inputs: unknown[], count: number): number {
  let accepted = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) if (check(inputs[i & 1023]) !== null) accepted++;
  const elapsed = Number(process.hrtime.bigint() - start);
  if (accepted !== count) throw new Error(`a check refused a valid payload (${count - accepted} of ${count})`);
  return elapsed / count;
}

async function timePipe(dto: Type<unknown>, inputs: unknown[], count: number): Promise<number> {
  const pipe = new KafkaValidationPipe();
  const metadata: ArgumentMetadata = { type: 'body', metatype: dto, data: undefined };
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await pipe.transform(inputs[i & 1023], metadata);
  return Number(process.hrtime.bigint() - start) / count;
}

interface CheckResult {
  event: string;
  compiledNs: number;
  handWrittenNs: number;
  pipeNs: number;
}

async function measure(
  event: string,
  dto: Type<unknown>,
  handWritten: (payload: unknown) => unknown,
  inputs: unknown[],
): Promise<CheckResult> {
  const compiled = compiledAccept(dto);
  // Warm both up (JIT), then alternate, so drift on a busy machine falls on both alike.
  timeChecks(compiled, inputs, PER_ROUND);
  timeChecks(handWritten, inputs, PER_ROUND);
  const compiledNs: number[] = [];
  const handWrittenNs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      compiledNs.push(timeChecks(compiled, inputs, PER_ROUND));
      handWrittenNs.push(timeChecks(handWritten, inputs, PER_ROUND));
    } else {
      handWrittenNs.push(timeChecks(handWritten, inputs, PER_ROUND));
      compiledNs.push(timeChecks(compiled, inputs, PER_ROUND));
    }
  }
  return {
    event,
    compiledNs: median(compiledNs),
    handWrittenNs: median(handWrittenNs),
    pipeNs: await timePipe(dto, inputs, PIPE_REQUESTS),
  };
}

export const requestChecksSection: BenchSection = {
  name: 'request-checks',
  summary:
    'Heartbeat and OffsetCommit checks compiled from the DTOs, in process; vs the hand-written checks they replaced',
  needsBuild: false,
  run: async () => void (await requestChecks()),
};

async function requestChecks(): Promise<CheckResult[]> {
  console.log(`Request checks of the hot path (${ROUNDS} alternating rounds of ${PER_ROUND} requests each)`);
  const results = [
    await measure('Heartbeat', HeartbeatDto, acceptHeartbeat, heartbeats),
    await measure('OffsetCommit (1 topic, 4 partitions)', OffsetCommitDto, acceptOffsetCommit, commits),
  ];
  table(
    ['request', 'compiled from the DTO', 'hand-written (baseline)', 'compiled / hand-written', 'class-validator pipe'],
    results.map((r) => [
      r.event,
      `${r.compiledNs.toFixed(0)} ns`,
      `${r.handWrittenNs.toFixed(0)} ns`,
      ratio(r.compiledNs, r.handWrittenNs),
      `${r.pipeNs.toFixed(0)} ns`,
    ]),
  );
  return results;
}
