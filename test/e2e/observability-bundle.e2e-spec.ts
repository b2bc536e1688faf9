import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { appPerFile } from '../support/app-per-file';

jest.setTimeout(60_000);

const BUNDLE = resolve(__dirname, '../../docker/observability');
const read = (path: string) => readFileSync(join(BUNDLE, path), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Panel {
  type: string;
  title: string;
  datasource?: { uid: string };
  targets?: { expr: string }[];
  panels?: Panel[];
}

/** The metric names a PromQL expression reads (histogram series map back to their histogram). */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/\b(cohort_[a-z_]+)/g)].map(([, name]) => name.replace(/_(bucket|sum|count)$/, ''));
}

/**
 * docker/observability: the alert rules, the Prometheus config and the Grafana dashboard parse, and
 * every metric they read is one a live node exports (names from its /metrics).
 */
describe('observability bundle (e2e)', () => {
  const app = appPerFile({ env: { METRICS_PARTITION_LAG: 'true' } });
  let exported: Set<string>;
  beforeAll(async () => {
    const text = (await app.http().get('/metrics').expect(200)).text;
    exported = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map(([, name]) => name));
  });

  it('alert rules parse, are complete, and read only exported metrics', () => {
    const { groups } = parse(read('alerts.yml')) as { groups: { name: string; rules: Rule[] }[] };
    const rules = groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert).sort()).toEqual(
      [
        'CohortCommitWriteFailures',
        'CohortGroupLagError',
        'CohortGroupLagStalled',
        'CohortGroupLagStopped',
        'CohortGroupTimeLagHigh',
        'CohortPartitionsOffline',
        'CohortPartitionsUnderReplicated',
        'CohortRebalanceStorm',
      ].sort(),
    );
    for (const rule of rules) {
      expect([rule.alert, typeof rule.expr, rule.for, rule.labels?.severity, typeof rule.annotations?.summary]).toEqual(
        [
          rule.alert,
          'string',
          expect.stringMatching(/^\d+m$/),
          expect.stringMatching(/^(warning|critical)$/),
          'string',
        ],
      );
      const used = metricsOf(rule.expr);
      expect(used.length).toBeGreaterThan(0);
      for (const metric of used) expect([rule.alert, metric, exported.has(metric)]).toEqual([rule.alert, metric, true]);
    }
    const prometheus = parse(read('prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: { job_name: string }[];
    };
    expect(prometheus.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    expect(prometheus.scrape_configs.map((c) => c.job_name)).toEqual(['cohort']);
  });

  it("the Grafana dashboard parses, uses the dashboard's data source, and reads only exported metrics", () => {
    const dashboard = JSON.parse(read('grafana/dashboards/cohort.json')) as {
      uid: string;
      panels: Panel[];
      templating: { list: { name: string; query: unknown }[] };
    };
    const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(15);
    const variables = dashboard.templating.list.map((v) => v.name);
    expect(variables).toEqual(['datasource', 'group']);
    const used = new Set<string>();
    for (const panel of panels) {
      expect([panel.title, panel.datasource?.uid]).toEqual([panel.title, '${datasource}']);
      for (const target of panel.targets ?? []) for (const metric of metricsOf(target.expr)) used.add(metric);
    }
    for (const metric of used) expect([metric, exported.has(metric)]).toEqual([metric, true]);
    // What the bundle is for: lag, lag status, partition health, requests, rebalances.
    for (const metric of [
      'cohort_group_lag',
      'cohort_group_max_lag',
      'cohort_group_lag_status',
      'cohort_partition_under_replicated',
      'cohort_partition_offline',
      'cohort_partition_isr_size',
      'cohort_requests_total',
      'cohort_request_duration_seconds',
      'cohort_rebalances_total',
    ]) {
      expect([metric, used.has(metric)]).toEqual([metric, true]);
    }
  });

  it('the compose file starts Prometheus and Grafana only in the observability profile, with the bundle mounted', () => {
    const compose = parse(readFileSync(resolve(BUNDLE, '../compose.yml'), 'utf8')) as {
      services: Record<string, { profiles?: string[]; volumes?: string[] }>;
    };
    expect(compose.services.prometheus.profiles).toEqual(['observability']);
    expect(compose.services.grafana.profiles).toEqual(['observability']);
    expect(compose.services['node-0'].profiles).toBeUndefined();
    expect(compose.services.prometheus.volumes).toContain('./observability/alerts.yml:/etc/prometheus/alerts.yml:ro');
    expect(compose.services.grafana.volumes).toContain(
      './observability/grafana/provisioning:/etc/grafana/provisioning:ro',
    );
    const provider = parse(read('grafana/provisioning/dashboards/cohort.yml')) as {
      providers: { options: { path: string } }[];
    };
    expect(compose.services.grafana.volumes).toContain(
      `./observability/grafana/dashboards:${provider.providers[0].options.path}:ro`,
    );
  });
});
