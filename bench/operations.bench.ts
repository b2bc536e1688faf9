/**
 * Issue 10: the operator endpoints on a node holding 10,000 groups and 100,000 committed partitions —
 * `GET /v1/groups/:id/lag` (Burrow's evaluation of one group) and the `/metrics` scrape (every group's
 * lag evaluated, the largest METRICS_MAX_GROUPS exported; target under 200 ms) — beside `/health/live`
 * measured in the same run, one request at a time. The scrape is measured again with
 * METRICS_PARTITION_LAG=true (same data, the node restarted on it).
 * Section `operations` of `npm run bench` (`npm run bench -- operations` runs it alone).
 */
import { CohortProcess } from './harness/cohort-process';
import {
  fillOperatorFixture,
  OPERATOR_FIXTURE_GROUPS,
  OPERATOR_FIXTURE_PARTITIONS_PER_GROUP,
} from './harness/operator-fixture';
import { scaled } from './harness/scale';
import { type BenchSection } from './harness/section';
import { median, ms, percentile, ratio, table } from './harness/stats';

const SCRAPE_TARGET_MS = 200;

interface Timed {
  p50: number;
  p99: number;
  bytes: number;
}

/** `runs` sequential GETs (after a few to warm up): median and p99 wall time, and the size of the last answer. */
async function timeGets(url: (i: number) => string, runs: number): Promise<Timed> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = -3; i < runs; i++) {
    const started = process.hrtime.bigint();
    const response = await fetch(url(i < 0 ? 0 : i));
    const body = await response.arrayBuffer();
    if (!response.ok) throw new Error(`GET ${url(i)}: ${response.status}`);
    if (i >= 0) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    bytes = body.byteLength;
  }
  const sorted = times.sort((a, b) => a - b);
  return { p50: median(sorted), p99: percentile(sorted, 99), bytes };
}

function kib(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;
}

export const operationsSection: BenchSection = {
  name: 'operations',
  summary: 'GET /v1/groups/:id/lag and the /metrics scrape on 10,000 groups; vs /health/live',
  needsBuild: true,
  run: () => operations(),
};

async function operations(): Promise<void> {
  const groups = scaled(OPERATOR_FIXTURE_GROUPS, 100);
  console.log(
    `Operator REST and metrics, ${groups.toLocaleString('en-US')} groups × ${OPERATOR_FIXTURE_PARTITIONS_PER_GROUP} committed partitions (sequential requests; scrape target < ${SCRAPE_TARGET_MS} ms)`,
  );
  const node = await CohortProcess.start({ LOG_FLUSH_POLICY: 'replicated' });
  try {
    const fixture = await fillOperatorFixture(node, groups);
    console.log(
      `   fixture: ${(fixture.groups * fixture.partitionsPerGroup).toLocaleString('en-US')} offsets committed in ${ms(fixture.fillMs)}`,
    );
    const live = await timeGets(() => `${node.url}/health/live`, 200);
    const lag = await timeGets(
      (i) => `${node.url}/v1/groups/${encodeURIComponent(fixture.groupId((i * 7919) % groups))}/lag`,
      200,
    );
    const offsets = await timeGets(
      (i) => `${node.url}/v1/groups/${encodeURIComponent(fixture.groupId((i * 7919) % groups))}/offsets`,
      200,
    );
    const scrape = await timeGets(() => `${node.url}/metrics`, 30);
    await node.stop();
    await node.launch({ LOG_FLUSH_POLICY: 'replicated', METRICS_PARTITION_LAG: 'true' });
    const scrapePartitions = await timeGets(() => `${node.url}/metrics`, 30);
    const row = (what: string, t: Timed, note = ''): string[] => [
      what,
      ms(t.p50),
      ms(t.p99),
      kib(t.bytes),
      ratio(t.p50, live.p50),
      note,
    ];
    table(
      ['request', 'median', 'p99', 'answer', 'median vs /health/live', 'note'],
      [
        row('GET /health/live', live, 'baseline: a request through the app'),
        row(
          'GET /v1/groups/:id/lag',
          lag,
          `10 partitions, Burrow status and history; ${ratio(lag.p50, offsets.p50)} the offsets read`,
        ),
        row('GET /v1/groups/:id/offsets', offsets, 'the same group, offsets and lag only'),
        row(
          'GET /metrics',
          scrape,
          `${ratio(scrape.p50, SCRAPE_TARGET_MS)} the 200 ms target; 1,000 groups exported (METRICS_MAX_GROUPS)`,
        ),
        row(
          'GET /metrics, METRICS_PARTITION_LAG=true',
          scrapePartitions,
          `${ratio(scrapePartitions.p50, SCRAPE_TARGET_MS)} the target`,
        ),
      ],
    );
  } finally {
    await node.dispose();
  }
}
