import { ErrorCode } from '@cohort/protocol';
import request from 'supertest';
import { appPerFile } from '../support/app-per-file';
import { startApp, tempDataDir } from '../support/test-app';
import { sample } from '../support/prometheus-sample';

jest.setTimeout(60_000);

/**
 * docs/lag.md over real HTTP: lag that is unknown reads null (never a zero), time lag from dated
 * end-offset reports in REST and /metrics, and offset resets by datetime and duration over the same
 * time index.
 */
describe('time lag and resets by time (e2e)', () => {
  const app = appPerFile({ env: { METRICS_PARTITION_LAG: 'true' }, topics: { orders: 2, silent: 1 } });
  const http = app.http;
  const MINUTE = 60_000;
  /** Ten minutes before the test file ran: the reports below are dated from it. */
  const t0 = Date.now() - 10 * MINUTE;

  async function commit(groupId: string, topic: string, offsets: number[]): Promise<void> {
    const partitions = offsets.map((committedOffset, partitionIndex) => ({ partitionIndex, committedOffset }));
    await http()
      .post(`/v1/groups/${groupId}/offsets`)
      .send({ topics: [{ name: topic, partitions }] })
      .expect(200);
  }

  beforeAll(async () => {
    // orders-0 ended at 100 ten minutes ago and at 200 five minutes ago; orders-1 at 40 ten minutes ago.
    await http()
      .put('/v1/topics/orders/end-offsets')
      .send({
        partitions: [
          { partition: 0, endOffset: 100, startOffset: 20, timestamp: t0 },
          { partition: 1, endOffset: 40, timestamp: t0 },
        ],
      })
      .expect(200);
    await http()
      .put('/v1/topics/orders/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 200, timestamp: t0 + 5 * MINUTE }] })
      .expect(200);
  });

  it('answers null totals, not zero, while no end offset is reported', async () => {
    await commit('unreported', 'silent', [7]);
    const offsets = (await http().get('/v1/groups/unreported/offsets').expect(200)).body;
    expect(offsets).toMatchObject({ totalLag: null, maxTimeLagMs: null });
    expect(offsets.offsets[0]).toMatchObject({ committedOffset: 7, logEndOffset: null, lag: null, timeLagMs: null });
    const lag = (await http().get('/v1/groups/unreported/lag').expect(200)).body;
    expect(lag).toMatchObject({ status: 'UNKNOWN', totalLag: null, maxLag: null, maxTimeLagMs: null });
    const metrics = (await http().get('/metrics').expect(200)).text;
    expect(sample(metrics, 'cohort_group_max_lag', { group: 'unreported' })).toBeUndefined();
    expect(sample(metrics, 'cohort_group_lag', { group: 'unreported' })).toBeUndefined();
    expect(sample(metrics, 'cohort_group_lag_status', { group: 'unreported', status: 'UNKNOWN' })).toBe(1);
  });

  it('gives each partition its time lag in REST and /metrics: how long ago its committed offset was the log end', async () => {
    await commit('lagging', 'orders', [150, 40]);
    const before = Date.now();
    const lag = (await http().get('/v1/groups/lagging/lag').expect(200)).body;
    const after = Date.now();
    // 150 is half way from 100 (t0) to 200 (t0 + 5 min): the end was 150 at t0 + 2.5 min.
    const expected = (now: number) => now - (t0 + 2.5 * MINUTE);
    const orders0 = lag.partitions.find((p: { partition: number }) => p.partition === 0);
    expect(orders0).toMatchObject({ lag: 50, logEndOffset: 200 });
    expect(orders0.timeLagMs).toBeGreaterThanOrEqual(expected(before) - 1);
    expect(orders0.timeLagMs).toBeLessThanOrEqual(expected(after) + 1);
    expect(lag.partitions.find((p: { partition: number }) => p.partition === 1)).toMatchObject({
      lag: 0,
      timeLagMs: 0,
    });
    expect(lag).toMatchObject({ totalLag: 50, maxLag: 50, maxTimeLagMs: orders0.timeLagMs });

    const offsets = (await http().get('/v1/groups/lagging/offsets').expect(200)).body;
    expect(offsets.totalLag).toBe(50);
    expect(offsets.offsets.map((o: { timeLagMs: number }) => o.timeLagMs)).toEqual([expect.any(Number), 0]);
    expect(Math.abs(offsets.maxTimeLagMs - expected(Date.now()))).toBeLessThan(5_000);

    const metrics = (await http().get('/metrics').expect(200)).text;
    const seconds = sample(metrics, 'cohort_group_time_lag_seconds', { group: 'lagging', topic: 'orders' })!;
    expect(Math.abs(seconds - expected(Date.now()) / 1000)).toBeLessThan(5);
    expect(
      sample(metrics, 'cohort_group_partition_time_lag_seconds', { group: 'lagging', topic: 'orders', partition: '1' }),
    ).toBe(0);
  });

  it('refuses a report dated more than an hour ahead (INVALID_TIMESTAMP) or not in milliseconds, and keeps the rest', async () => {
    const ahead = await http()
      .put('/v1/topics/orders/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 999, timestamp: Date.now() + 2 * 3_600_000 }] })
      .expect(400);
    expect(ahead.body).toMatchObject({ statusCode: 400, errorCode: 32, error: 'INVALID_TIMESTAMP' });
    const bad = await http()
      .put('/v1/topics/orders/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 999, timestamp: 'yesterday' }] })
      .expect(400);
    expect(bad.body).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    expect(bad.body.message).toContain('timestamp');
    expect((await http().get('/v1/topics/orders').expect(200)).body.endOffsets).toEqual({ 0: 200, 1: 40 });
  });

  const reset = (groupId: string, body: object) =>
    http()
      .post(`/v1/groups/${groupId}/offsets/reset`)
      .send({ topics: [{ name: 'orders' }], ...body });
  const newOffsets = async (body: object) =>
    (await reset('lagging', body).expect(200)).body.offsets.map((o: { newOffset: number }) => o.newOffset);

  it("resets by datetime to the end offset as of then (the latest report at or before it), as Kafka's --to-datetime", async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(await newOffsets({ strategy: 'datetime', datetime: iso(t0 + 5 * MINUTE) })).toEqual([200, 40]);
    expect(await newOffsets({ strategy: 'datetime', datetime: iso(t0 + 5 * MINUTE - 1) })).toEqual([100, 40]);
    // Without a zone the time is UTC, as Kafka reads it; with an offset, that offset.
    expect(await newOffsets({ strategy: 'datetime', datetime: iso(t0 + MINUTE).replace('Z', '') })).toEqual([100, 40]);
    expect(
      await newOffsets({ strategy: 'datetime', datetime: iso(t0 + 7 * MINUTE + 3_600_000).replace('Z', '+01:00') }),
    ).toEqual([200, 40]);
    // Before the first report: the reported start offset, else the earliest report.
    expect(await newOffsets({ strategy: 'datetime', datetime: '2001-01-01T00:00:00.000' })).toEqual([20, 40]);
  });

  it("resets by duration to the end offset as of that long ago, as Kafka's --by-duration", async () => {
    expect(await newOffsets({ strategy: 'duration', duration: 'PT3M' })).toEqual([200, 40]);
    expect(await newOffsets({ strategy: 'duration', duration: 'PT7M' })).toEqual([100, 40]);
    expect(await newOffsets({ strategy: 'duration', duration: 'P1DT2H' })).toEqual([20, 40]);
  });

  it('refuses a datetime or duration Kafka would not read, naming the format, and changes nothing', async () => {
    for (const body of [
      { strategy: 'datetime', datetime: '05/12/2026 10:00' },
      { strategy: 'datetime', datetime: '2026-02-30T10:00:00.000' },
      { strategy: 'datetime' },
      { strategy: 'duration', duration: '1 hour' },
      { strategy: 'duration', duration: 'P1M' },
      { strategy: 'duration', duration: 42 },
    ]) {
      const refused = await reset('lagging', { ...body, dryRun: false }).expect(400);
      expect(refused.body).toMatchObject({ statusCode: 400, errorCode: ErrorCode.INVALID_REQUEST });
      expect(refused.body.message).toMatch(/datetime|duration/);
    }
    expect(
      (await http().get('/v1/groups/lagging/offsets').expect(200)).body.offsets.map(
        (o: { committedOffset: number }) => o.committedOffset,
      ),
    ).toEqual([150, 40]);
  });

  it('executes a reset by duration on an Empty group, answering once the offsets are committed', async () => {
    await commit('rewind', 'orders', [200, 40]);
    const { body } = await reset('rewind', { strategy: 'duration', duration: 'PT8M', dryRun: false }).expect(200);
    expect(body).toEqual({
      groupId: 'rewind',
      dryRun: false,
      offsets: [
        { topic: 'orders', partition: 0, currentOffset: 200, newOffset: 100 },
        { topic: 'orders', partition: 1, currentOffset: 40, newOffset: 40 },
      ],
    });
    const offsets = (await http().get('/v1/groups/rewind/offsets').expect(200)).body;
    expect(offsets.offsets.map((o: { committedOffset: number }) => o.committedOffset)).toEqual([100, 40]);
    expect(offsets.totalLag).toBe(100);
  });

  it('keeps the time index across a restart of an embedded node (topics.json under DATA_DIR)', async () => {
    const data = tempDataDir();
    const reports = [
      { endOffset: 10, timestamp: t0 },
      { endOffset: 30, timestamp: t0 + 5 * MINUTE },
    ];
    let node = await startApp({ DATA_DIR: data.dir });
    try {
      await request(node.url).post('/v1/topics').send({ name: 'kept', partitions: 1 }).expect(201);
      for (const report of reports)
        await request(node.url)
          .put('/v1/topics/kept/end-offsets')
          .send({ partitions: [{ partition: 0, ...report }] })
          .expect(200);
      await request(node.url)
        .post('/v1/groups/kept-group/offsets')
        .send({ topics: [{ name: 'kept', partitions: [{ partitionIndex: 0, committedOffset: 20 }] }] })
        .expect(200);
      await node.close();
      node = await startApp({ DATA_DIR: data.dir });
      const preview = await request(node.url)
        .post('/v1/groups/kept-group/offsets/reset')
        .send({ allTopics: true, strategy: 'duration', duration: 'PT7M' })
        .expect(200);
      expect(preview.body.offsets[0].newOffset).toBe(10); // the entry of ten minutes ago survived
      const lag = (await request(node.url).get('/v1/groups/kept-group/lag').expect(200)).body;
      // 20 is half way from 10 (t0) to 30 (t0 + 5 min).
      expect(Math.abs(lag.maxTimeLagMs - (Date.now() - (t0 + 2.5 * MINUTE)))).toBeLessThan(5_000);
    } finally {
      await node.close();
      data.remove();
    }
  });
});
