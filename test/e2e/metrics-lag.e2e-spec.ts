import { appPerFile } from '../support/app-per-file';
import { sample } from '../support/prometheus-sample';
import { connect, request as emit } from '../support/socket-client';

jest.setTimeout(60_000);

describe('lag metrics (e2e)', () => {
  const app = appPerFile({ env: { METRICS_PARTITION_LAG: 'true' }, topics: { orders: 2 } });
  const http = app.http;

  it('lag series appear after a commit and change with the next one', async () => {
    await http()
      .put('/v1/topics/orders/end-offsets')
      .send({
        partitions: [
          { partition: 0, endOffset: 100 },
          { partition: 1, endOffset: 50 },
        ],
      })
      .expect(200);
    const scrape = async () => (await http().get('/metrics').expect(200)).text;
    expect(sample(await scrape(), 'cohort_group_lag', { group: 'metered' })).toBeUndefined();

    const socket = await connect(app.url);
    try {
      const commit = (offsets: number[]) =>
        emit(socket, 'OffsetCommit', {
          groupId: 'metered',
          generationId: -1,
          memberId: '',
          topics: [
            {
              name: 'orders',
              partitions: offsets.map((committedOffset, partitionIndex) => ({ partitionIndex, committedOffset })),
            },
          ],
        });
      await commit([10, 45]);
      let text = await scrape();
      expect(sample(text, 'cohort_group_lag', { group: 'metered', topic: 'orders' })).toBe(90 + 5);
      expect(sample(text, 'cohort_group_max_lag', { group: 'metered' })).toBe(90);
      expect(sample(text, 'cohort_group_partition_lag', { group: 'metered', topic: 'orders', partition: '1' })).toBe(5);
      const statuses = ['OK', 'WARN', 'ERR', 'STOP', 'STALL', 'UNKNOWN'].map((status) =>
        sample(text, 'cohort_group_lag_status', { group: 'metered', status }),
      );
      expect(statuses.filter((v) => v === 1)).toHaveLength(1);
      expect(statuses.filter((v) => v === 0)).toHaveLength(5);

      await commit([100, 50]);
      text = await scrape();
      expect(sample(text, 'cohort_group_lag', { group: 'metered', topic: 'orders' })).toBe(0);
      expect(sample(text, 'cohort_group_max_lag', { group: 'metered' })).toBe(0);
      expect(sample(text, 'cohort_group_lag_status', { group: 'metered', status: 'OK' })).toBe(1);
    } finally {
      socket.disconnect();
    }
  });

  it('reports the health of the partitions the node leads', async () => {
    const text = (await http().get('/metrics').expect(200)).text;
    expect(sample(text, 'cohort_partition_under_replicated', {})).toBe(0);
    expect(sample(text, 'cohort_partition_offline', {})).toBe(0);
    expect(sample(text, 'cohort_partition_isr_size', { partition: '0' })).toBe(1);
    expect(sample(text, 'cohort_partition_isr_size', { partition: '49' })).toBe(1);
  });
});
