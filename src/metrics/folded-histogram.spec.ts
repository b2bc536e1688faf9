import { Histogram, Registry } from 'prom-client';
import { CohortMetrics } from './cohort-metrics';
import { FoldedHistogramSeries } from './folded-histogram';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function histogram(registry: Registry, collect?: () => void): Histogram<'transport' | 'api'> {
  return new Histogram({
    name: 'cohort_request_duration_seconds',
    help: 'Time from request to answer; JoinGroup and SyncGroup include the wait for the rebalance phase.',
    labelNames: ['transport', 'api'] as const,
    buckets: BUCKETS,
    registers: [registry],
    collect,
  });
}

/** Only the request-duration histogram's lines of a scrape. */
const durations = (scrape: string) =>
  scrape
    .split('\n')
    .filter((line) => line.includes('cohort_request_duration_seconds'))
    .join('\n');

// Sums of these are exact in binary, so any order of adding gives the same sum.
const VALUES = [0.0005, 2 ** -11, 2 ** -10, 0.001, 2 ** -4, 0.25, 1, 30, 64, 2 ** -20, 0.5, 2.5];
const OBSERVATIONS: [transport: string, api: string, seconds: number][] = VALUES.flatMap((seconds, i) => [
  ['socket.io', i % 3 === 0 ? 'ShareAcquire' : 'ShareAcknowledge', seconds],
  ['http', 'OffsetFetch', seconds * 2],
  ['socket.io', 'Heartbeat', seconds],
]);

describe('FoldedHistogramSeries', () => {
  it("scrapes exactly as prom-client's own observe would have counted the same values, across scrapes", async () => {
    const plainRegistry = new Registry();
    const plain = histogram(plainRegistry);
    const metrics = new CohortMetrics();
    const halves = [OBSERVATIONS.slice(0, 13), OBSERVATIONS.slice(13)];
    for (const half of halves) {
      for (const [transport, api, seconds] of half) {
        plain.labels({ transport, api }).observe(seconds);
        metrics.requestAnswered(transport as 'socket.io' | 'http', api, 0, seconds);
      }
      const expected = durations(await plainRegistry.metrics());
      expect(expected).toContain('le="+Inf"');
      expect(durations(await metrics.registry.metrics())).toBe(expected);
      expect(durations(await metrics.registry.metrics())).toBe(expected); // a second read adds nothing
    }
    const json = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'cohort_request_duration_seconds');
    const plainJson = (await plainRegistry.getMetricsAsJSON()).find(
      (m) => m.name === 'cohort_request_duration_seconds',
    );
    expect(json).toEqual(plainJson);
  });

  it('adds to a series prom-client already holds, and starts one again after a reset', async () => {
    const registry = new Registry();
    const series: FoldedHistogramSeries[] = [];
    const folded = histogram(registry, () => series.forEach((s) => s.fold()));
    const plainRegistry = new Registry();
    const plain = histogram(plainRegistry);
    folded.labels({ transport: 'http', api: 'Heartbeat' }).observe(0.25);
    plain.labels({ transport: 'http', api: 'Heartbeat' }).observe(0.25);
    series.push(new FoldedHistogramSeries(folded, { transport: 'http', api: 'Heartbeat' }));
    series[0].observe(0.001);
    plain.labels({ transport: 'http', api: 'Heartbeat' }).observe(0.001);
    expect(durations(await registry.metrics())).toBe(durations(await plainRegistry.metrics()));
    folded.reset();
    plain.reset();
    series[0].observe(4);
    plain.labels({ transport: 'http', api: 'Heartbeat' }).observe(4);
    expect(durations(await registry.metrics())).toBe(durations(await plainRegistry.metrics()));
  });

  it('refuses a value that is not a finite number, as prom-client does', () => {
    const series = new FoldedHistogramSeries(histogram(new Registry()), { transport: 'http', api: 'Heartbeat' });
    expect(() => series.observe(Number.NaN)).toThrow(TypeError);
  });
});
