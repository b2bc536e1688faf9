/**
 * Issue 10: the dashboard's groups page against a node holding 10,000 groups and 100,000 committed
 * partitions, in Debian's Chromium (cold cache each load): time until the page is usable (the first 50
 * rows rendered, the page's own performance mark) and until those rows' lag statuses are in, and the
 * bytes transferred by then — beside, in the same run, the same page on an empty node, one static file
 * from the same node, and the group list fetched by Node without a browser.
 * Section `dashboard` of `npm run bench` (`npm run bench -- dashboard` runs it alone).
 */
import type { BrowserContext } from 'playwright-core';
import { launchDashboardBrowser } from '../test/support/dashboard-browser';
import { CohortProcess } from './harness/cohort-process';
import {
  fillOperatorFixture,
  OPERATOR_FIXTURE_GROUPS,
  OPERATOR_FIXTURE_PARTITIONS_PER_GROUP,
} from './harness/operator-fixture';
import { scaled } from './harness/scale';
import { type BenchSection } from './harness/section';
import { median, ms, ratio, table } from './harness/stats';

/** The marks the groups page sets (ui/src/pages/groups-page.tsx). */
const MARK_USABLE = 'cohort:groups-usable';
const MARK_LAG_STATUSES = 'cohort:groups-lag-statuses';
const RUNS = 5;

interface BrowserTiming {
  startTime: number;
  responseEnd: number;
  transferSize: number;
  loadEventEnd: number;
}

interface Load {
  ms: number;
  bytes: number;
  requests: number;
}

/** Navigation start → `mark` (or the load event), and what the page had transferred by then (headers included). */
async function load(context: BrowserContext, url: string, mark: string | null): Promise<Load> {
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.goto(url, { waitUntil: mark ? 'commit' : 'load', timeout: 120_000 });
    if (mark)
      await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, mark, {
        timeout: 120_000,
        polling: 20,
      });
    return await page.evaluate((name) => {
      // The browser's Performance (navigation and resource timing), typed here without the DOM library.
      const timing = performance as unknown as {
        getEntriesByType(type: string): BrowserTiming[];
        getEntriesByName(name: string): BrowserTiming[];
      };
      const navigation = timing.getEntriesByType('navigation')[0];
      const at = name ? timing.getEntriesByName(name)[0].startTime : navigation.loadEventEnd;
      const entries = [navigation, ...timing.getEntriesByType('resource')].filter((e) => e.responseEnd <= at);
      return { ms: at, bytes: entries.reduce((sum, e) => sum + e.transferSize, 0), requests: entries.length };
    }, mark);
  } finally {
    await page.close();
  }
}

async function repeat(what: () => Promise<Load>): Promise<Load> {
  const loads: Load[] = [];
  for (let i = 0; i < RUNS; i++) loads.push(await what());
  return {
    ms: median(loads.map((l) => l.ms)),
    bytes: median(loads.map((l) => l.bytes)),
    requests: median(loads.map((l) => l.requests)),
  };
}

async function nodeFetch(url: string): Promise<Load> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/groups`);
  const body = await response.arrayBuffer();
  JSON.parse(Buffer.from(body).toString('utf8'));
  return { ms: performance.now() - started, bytes: body.byteLength, requests: 1 };
}

/**
 * A poll of an unchanged list, as the page makes it every 10 s: the page loaded with its cache on, then
 * the same request again (`cache: 'no-cache'`, so Chromium revalidates with the list's ETag).
 */
async function poll(context: BrowserContext, url: string): Promise<Load> {
  const page = await context.newPage();
  try {
    await page.goto(url, { waitUntil: 'commit', timeout: 120_000 });
    await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, MARK_USABLE, {
      timeout: 120_000,
      polling: 20,
    });
    return await page.evaluate(async () => {
      const timing = performance as unknown as {
        now(): number;
        getEntriesByType(type: string): (BrowserTiming & { name: string })[];
      };
      const started = timing.now();
      const response = await fetch('/v1/groups', {
        cache: 'no-cache',
        headers: { accept: 'application/json' },
      } as RequestInit);
      await response.json();
      const took = timing.now() - started;
      const entry = timing
        .getEntriesByType('resource')
        .filter((e) => e.name.endsWith('/v1/groups'))
        .pop();
      return { ms: took, bytes: entry?.transferSize ?? Number.NaN, requests: 1 };
    });
  } finally {
    await page.close();
  }
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

export const dashboardSection: BenchSection = {
  name: 'dashboard',
  summary:
    'the groups page in Chromium on 10,000 groups; vs an empty node, a static file and the list fetched without a browser',
  needsBuild: true,
  run: () => dashboard(),
};

async function dashboard(): Promise<void> {
  const groups = scaled(OPERATOR_FIXTURE_GROUPS, 100);
  console.log(
    `Dashboard groups page, ${groups.toLocaleString('en-US')} groups × ${OPERATOR_FIXTURE_PARTITIONS_PER_GROUP} committed partitions (Chromium, cold cache, median of ${RUNS})`,
  );
  const empty = await CohortProcess.start({});
  const full = await CohortProcess.start({ LOG_FLUSH_POLICY: 'replicated' });
  const browser = await launchDashboardBrowser();
  try {
    const fixture = await fillOperatorFixture(full, groups);
    console.log(
      `   fixture: ${(fixture.groups * fixture.partitionsPerGroup).toLocaleString('en-US')} offsets committed in ${ms(fixture.fillMs)}`,
    );
    const staticFile = await repeat(() => load(browser.context, `${full.url}/ui/styles.css`, null));
    const emptyPage = await repeat(() => load(browser.context, `${empty.url}/ui/#/groups`, MARK_USABLE));
    const usable = await repeat(() => load(browser.context, `${full.url}/ui/#/groups`, MARK_USABLE));
    const statuses = await repeat(() => load(browser.context, `${full.url}/ui/#/groups`, MARK_LAG_STATUSES));
    const api = await repeat(() => nodeFetch(full.url));
    const polled = await repeat(() => poll(browser.context, `${full.url}/ui/#/groups`));
    const row = (what: string, l: Load, note = ''): string[] => [
      what,
      ms(l.ms),
      kib(l.bytes),
      String(l.requests),
      ratio(l.ms, staticFile.ms),
      ratio(l.ms, emptyPage.ms),
      note,
    ];
    table(
      ['load', 'time', 'transferred', 'requests', 'vs static file', 'vs empty node', 'note'],
      [
        row('static file from the node (/ui/styles.css)', staticFile, 'baseline: a navigation'),
        row('groups page, empty node → usable', emptyPage, "baseline: the page's fixed cost"),
        row(`groups page, ${groups.toLocaleString('en-US')} groups → usable (50 rows)`, usable),
        row(
          `groups page, ${groups.toLocaleString('en-US')} groups → lag statuses of the 50 rows`,
          statuses,
          'one /lag per row, 4 at a time',
        ),
        row('GET /v1/groups from Node, no browser', api, 'the list alone'),
        row('the page polling the unchanged list again', polled, 'revalidated by its ETag: a 304'),
      ],
    );
  } finally {
    await browser.close();
    await Promise.all([empty.dispose(), full.dispose()]);
  }
}
