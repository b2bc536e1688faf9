import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@cohort/cli/cli-program';
import { appPerFile } from '../support/app-per-file';
import { eventually, settledTogether } from '../support/group-member';

jest.setTimeout(60_000);

interface Ran {
  code: number;
  out: string;
  err: string;
}

/** The rows of a table as arrays of cells (split on runs of two or more spaces). */
function rows(table: string): string[][] {
  return table
    .trimEnd()
    .split('\n')
    .map((line) => line.split(/\s{2,}/));
}

/** kafka-consumer-groups.sh's datetime format, in UTC: YYYY-MM-DDTHH:mm:SS.sss. */
const kafkaDatetime = (ms: number): string => new Date(ms).toISOString().slice(0, 23);

/** The flags of kafka-consumer-groups.sh that `cohort` accepts as Kafka spells them, against a real node. */
describe('cohort with kafka-consumer-groups.sh flags (e2e)', () => {
  const app = appPerFile({ topics: { orders: 3, audit: 1 } });
  const pool = app.members({ topics: ['orders'], clientId: 'flags-app' });
  const dir = mkdtempSync(join(tmpdir(), 'cohort-cli-flags-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function cohort(...args: string[]): Promise<Ran> {
    let out = '';
    let err = '';
    const code = await runCli(['--url', app.url, ...args], {
      io: { out: (t) => void (out += t), err: (t) => void (err += t) },
      env: {},
    });
    return { code, out, err };
  }

  async function commitOffsets(groupId: string, topic: string, offsets: Record<number, number>): Promise<void> {
    const partitions = Object.entries(offsets).map(([p, o]) => ({ partitionIndex: Number(p), committedOffset: o }));
    await app
      .http()
      .post(`/v1/groups/${groupId}/offsets`)
      .send({ topics: [{ name: topic, partitions }] })
      .expect(200);
  }

  async function committed(groupId: string): Promise<string[]> {
    const body = (await app.http().get(`/v1/groups/${groupId}/offsets`).expect(200)).body as {
      offsets: { topic: string; partition: number; committedOffset: number }[];
    };
    return body.offsets.map((o) => `${o.topic}:${o.partition}=${o.committedOffset}`).sort();
  }

  beforeAll(async () => {
    await app
      .http()
      .put('/v1/topics/orders/end-offsets')
      .send({ partitions: [0, 1, 2].map((partition) => ({ partition, endOffset: 100, startOffset: 0 })) })
      .expect(200);
  });

  it('--dry-run previews without changing anything, and --dry-run with --execute is bad usage', async () => {
    await commitOffsets('dry', 'orders', { 0: 40, 1: 50 });
    const preview = await cohort('offsets', 'reset', 'dry', '--topic', 'orders', '--to-earliest', '--dry-run');
    expect(preview.code).toBe(0);
    expect(rows(preview.out)).toEqual([
      ['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'NEW-OFFSET'],
      ['dry', 'orders', '0', '40', '0'],
      ['dry', 'orders', '1', '50', '0'],
      ['dry', 'orders', '2', '-', '0'],
    ]);
    expect(await committed('dry')).toEqual(['orders:0=40', 'orders:1=50']);

    const both = await cohort('offsets', 'reset', 'dry', '--all-topics', '--to-latest', '--dry-run', '--execute');
    expect(both.code).toBe(2);
    expect(both.err).toContain('Option --reset-offsets only accepts one of --execute and --dry-run');
    expect(await committed('dry')).toEqual(['orders:0=40', 'orders:1=50']);
  });

  it('a preview of a group with members says that executing will be refused, in Kafka words', async () => {
    const member = await pool.member('busy');
    member.start();
    await eventually(() => settledTogether([member]), 'the member settled', 30_000);
    const preview = await cohort('offsets', 'reset', 'busy', '--all-topics', '--to-latest');
    expect(preview.code).toBe(0);
    expect(preview.err).toContain(
      "Executing this reset will be refused: assignments can only be reset if the group 'busy' is inactive, but the current state is Stable.",
    );
    const executed = await cohort('offsets', 'reset', 'busy', '--topic', 'orders', '--to-latest', '--execute');
    expect(executed.code).toBe(1);
    expect(executed.err).toMatch(/^Error: NON_EMPTY_GROUP: /);
  });

  it('describe --all-groups prints every group in one table, and a group with --all-groups is bad usage', async () => {
    await commitOffsets('all-a', 'audit', { 0: 3 });
    await commitOffsets('all-b', 'audit', { 0: 7 });
    const described = await cohort('groups', 'describe', '--all-groups');
    expect(described.code).toBe(0);
    const table = rows(described.out);
    expect(table[0].slice(0, 4)).toEqual(['GROUP', 'TOPIC', 'PARTITION', 'CURRENT-OFFSET']);
    expect(table.filter((r) => r[1] === 'audit').map((r) => [r[0], r[3]])).toEqual([
      ['all-a', '3'],
      ['all-b', '7'],
    ]);
    const states = rows((await cohort('groups', 'describe', '--all-groups', '--state')).out);
    expect(states.map((r) => r[0])).toEqual(expect.arrayContaining(['GROUP', 'all-a', 'all-b']));
    const json = JSON.parse((await cohort('--output', 'json', 'groups', 'describe', '--all-groups')).out) as {
      groupId: string;
    }[];
    expect(json.map((g) => g.groupId)).toEqual(expect.arrayContaining(['all-a', 'all-b']));

    expect((await cohort('groups', 'describe', 'all-a', '--all-groups')).code).toBe(2);
    expect((await cohort('groups', 'describe')).code).toBe(2);
  });

  it('--to-datetime and --by-duration reset to the end offset reported as of that time', async () => {
    const now = Date.now();
    const report = (endOffset: number, timestamp: number) =>
      app
        .http()
        .put('/v1/topics/audit/end-offsets')
        .send({ partitions: [{ partition: 0, endOffset, timestamp }] })
        .expect(200);
    await report(1000, now - 3 * 3_600_000);
    await report(2000, now - 2 * 3_600_000);
    await report(3000, now - 3_600_000);
    await commitOffsets('timed', 'audit', { 0: 2500 });

    const byDatetime = await cohort(
      'offsets',
      'reset',
      'timed',
      '--topic',
      'audit',
      '--to-datetime',
      kafkaDatetime(now - 2.5 * 3_600_000),
      '--execute',
    );
    expect(byDatetime.code).toBe(0);
    expect(rows(byDatetime.out)[1]).toEqual(['timed', 'audit', '0', '2500', '1000']);
    expect(await committed('timed')).toEqual(['audit:0=1000']);

    const byDuration = await cohort('offsets', 'reset', 'timed', '--topic', 'audit', '--by-duration', 'PT90M');
    expect(rows(byDuration.out)[1]).toEqual(['timed', 'audit', '0', '1000', '2000']);

    const bad = await cohort('offsets', 'reset', 'timed', '--topic', 'audit', '--to-datetime', 'yesterday');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^Error: INVALID_REQUEST: /);
    expect(await committed('timed')).toEqual(['audit:0=1000']);
  });

  it('--export prints the plan as topic,partition,offset CSV that --from-file executes, kept within start and end', async () => {
    await commitOffsets('planned', 'orders', { 0: 10, 1: 20, 2: 30 });
    const exported = await cohort('offsets', 'reset', 'planned', '--all-topics', '--shift-by', '5', '--export');
    expect(exported.code).toBe(0);
    expect(exported.out).toBe('orders,0,15\norders,1,25\norders,2,35\n');
    expect(await committed('planned')).toEqual(['orders:0=10', 'orders:1=20', 'orders:2=30']);

    const plan = join(dir, 'plan.csv');
    writeFileSync(plan, exported.out.replace('orders,2,35', 'orders,2,900'));
    const preview = await cohort('offsets', 'reset', 'planned', '--from-file', plan);
    expect(rows(preview.out).slice(1)).toEqual([
      ['planned', 'orders', '0', '10', '15'],
      ['planned', 'orders', '1', '20', '25'],
      ['planned', 'orders', '2', '30', '100'],
    ]);
    expect(await committed('planned')).toEqual(['orders:0=10', 'orders:1=20', 'orders:2=30']);

    const executed = await cohort('offsets', 'reset', 'planned', '--from-file', plan, '--execute', '--export');
    expect(executed.out).toBe('orders,0,15\norders,1,25\norders,2,100\n');
    expect(await committed('planned')).toEqual(['orders:0=15', 'orders:1=25', 'orders:2=100']);
    expect(readFileSync(plan, 'utf8')).toContain('orders,2,900');

    writeFileSync(plan, 'orders;0;15\n');
    const malformed = await cohort('offsets', 'reset', 'planned', '--from-file', plan, '--execute');
    expect(malformed.code).toBe(2);
    expect(malformed.err).toContain('--from-file line 1 ("orders;0;15"): expected topic,partition,offset');
    expect(await committed('planned')).toEqual(['orders:0=15', 'orders:1=25', 'orders:2=100']);
  });
});
