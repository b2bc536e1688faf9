import { CohortMetrics } from './cohort-metrics';

/** The value of the sample `name{labels}` in a scrape, or undefined when the scrape has no such line. */
function sample(scrape: string, series: string): number | undefined {
  const line = scrape.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('CohortMetrics counters read at scrape time', () => {
  const acquired = 'cohort_requests_total{transport="socket.io",api="ShareAcquire",error="NONE"}';
  const refused = 'cohort_requests_total{transport="socket.io",api="ShareAcquire",error="INVALID_REQUEST"}';
  const accepted = 'cohort_share_offsets_acknowledged_total{type="accept"}';

  it('shows every request answered and every offset acknowledged before the scrape, cumulatively', async () => {
    const metrics = new CohortMetrics();
    expect(sample(await metrics.registry.metrics(), acquired)).toBeUndefined();

    for (let i = 0; i < 3; i++) metrics.requestAnswered('socket.io', 'ShareAcquire', 0, 0.001);
    metrics.requestAnswered('socket.io', 'ShareAcquire', 42, 0.001);
    metrics.onShareOffsetsAcknowledged('accept', 2);
    metrics.onShareOffsetsAcknowledged('accept', 5);
    let scrape = await metrics.registry.metrics();
    expect(sample(scrape, acquired)).toBe(3);
    expect(sample(scrape, refused)).toBe(1);
    expect(sample(scrape, accepted)).toBe(7);
    expect(sample(scrape, 'cohort_request_duration_seconds_count{transport="socket.io",api="ShareAcquire"}')).toBe(4);

    // A scrape with nothing new changes nothing; later answers add to what was shown.
    expect(sample(await metrics.registry.metrics(), acquired)).toBe(3);
    metrics.requestAnswered('socket.io', 'ShareAcquire', 0, 0.001);
    metrics.onShareOffsetsAcknowledged('accept', 1);
    scrape = await metrics.registry.metrics();
    expect(sample(scrape, acquired)).toBe(4);
    expect(sample(scrape, accepted)).toBe(8);
  });

  it('keeps a series per transport, API and error name, and adds up the codes that share a name', async () => {
    const metrics = new CohortMetrics();
    metrics.requestAnswered('socket.io', 'Heartbeat', 0, 0.001);
    metrics.requestAnswered('http', 'Heartbeat', 0, 0.001);
    metrics.requestAnswered('socket.io', 'ConsumerGroupHeartbeat', 0, 0.001);
    metrics.requestAnswered('socket.io', 'ConsumerGroupHeartbeat', 0, 0.001);
    // Two codes this node does not know: both are UNKNOWN_SERVER_ERROR, as is -1 itself.
    metrics.requestAnswered('socket.io', 'ConsumerGroupHeartbeat', 9001, 0.001);
    metrics.requestAnswered('socket.io', 'ConsumerGroupHeartbeat', 9002, 0.001);
    metrics.requestAnswered('socket.io', 'ConsumerGroupHeartbeat', -1, 0.001);
    const scrape = await metrics.registry.metrics();
    const series = (transport: string, api: string, error: string) =>
      sample(scrape, `cohort_requests_total{transport="${transport}",api="${api}",error="${error}"}`);
    expect(series('socket.io', 'Heartbeat', 'NONE')).toBe(1);
    expect(series('http', 'Heartbeat', 'NONE')).toBe(1);
    expect(series('socket.io', 'ConsumerGroupHeartbeat', 'NONE')).toBe(2);
    expect(series('socket.io', 'ConsumerGroupHeartbeat', 'UNKNOWN_SERVER_ERROR')).toBe(3);
    expect(
      sample(scrape, 'cohort_request_duration_seconds_count{transport="socket.io",api="ConsumerGroupHeartbeat"}'),
    ).toBe(5);
  });

  it('gives the same values to a JSON read of the registry', async () => {
    const metrics = new CohortMetrics();
    metrics.requestAnswered('http', 'OffsetFetch', 0, 0.002);
    metrics.requestAnswered('http', 'OffsetFetch', 0, 0.002);
    const json = await metrics.registry.getMetricsAsJSON();
    const requests = json.find((m) => m.name === 'cohort_requests_total');
    expect(requests?.values).toEqual([{ value: 2, labels: { transport: 'http', api: 'OffsetFetch', error: 'NONE' } }]);
  });
});
