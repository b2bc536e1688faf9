import { LAG_MIN_DISTANCE_MS } from '@cohort/coordinator/group/lag-window';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { appPerFile } from '../support/app-per-file';
import { buildDashboardAssets, type DashboardBrowser, launchDashboardBrowser } from '../support/dashboard-browser';
import { eventually, settledTogether } from '../support/group-member';

// A real browser against a real node: launching Chromium alone can take seconds on a loaded machine.
jest.setTimeout(60_000);

/**
 * Screenshots of the main pages, for looking at (docs/images/ holds the chosen ones); gitignored.
 * DASHBOARD_SCREENSHOTS puts them elsewhere.
 */
const SHOTS = process.env.DASHBOARD_SCREENSHOTS ?? resolve(__dirname, '..', '..', '.screenshots');
/** How long the page may take to show what the node already knows: a few of its polling intervals. */
const UI_WAIT_MS = 15_000;

/**
 * The dashboard at /ui in Debian's Chromium (docs/dashboard.md): what test clients do over socket.io
 * shows on its pages, live, and its actions change the group through REST.
 */
describe('dashboard in a browser (e2e)', () => {
  beforeAll(() => buildDashboardAssets());
  const app = appPerFile({ topics: { orders: 4, payments: 2 } });
  const pool = app.members({ topics: ['orders'], heartbeatIntervalMs: 200 });
  let browser: DashboardBrowser;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchDashboardBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    page = await browser.context.newPage();
  });
  afterEach(async () => {
    await page?.close();
  });

  const shoot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

  it('lists a group, shows its members, assignments and lag, a join as a new rebalance live, and resets its offsets after a preview', async () => {
    await app
      .http()
      .put('/v1/topics/orders/end-offsets')
      .send({ partitions: [0, 1, 2, 3].map((partition) => ({ partition, endOffset: 100 })) })
      .expect(200);
    const first = await pool.member('billing', { clientId: 'billing-a' });
    first.start();
    await eventually(() => settledTogether([first]), 'the first member settled');
    // A consumer catching up: three commits, so each partition's lag has a history to chart. The lag
    // window keeps one commit per second (Burrow's min-distance), so the commits are that far apart.
    let lastCommitAt = 0;
    for (const progress of [0, 10, 20]) {
      await eventually(() => Date.now() - lastCommitAt > LAG_MIN_DISTANCE_MS, 'a second since the last commit', 5000);
      lastCommitAt = Date.now();
      const commit = await first.commit(
        [0, 1, 2, 3].map((partition) => ({ topic: 'orders', partition, offset: 20 + progress + partition * 10 })),
      );
      expect(commit.topics[0].partitions.every((p) => p.errorCode === 0)).toBe(true);
    }
    // Other groups beside it, Empty ones with offsets set over REST.
    await app
      .http()
      .put('/v1/topics/payments/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 9 }] })
      .expect(200);
    for (const groupId of ['payments-eu', 'payments-us', 'search-indexer']) {
      await app
        .http()
        .post(`/v1/groups/${groupId}/offsets`)
        .send({ topics: [{ name: 'payments', partitions: [{ partitionIndex: 0, committedOffset: 5 }] }] })
        .expect(200);
    }

    // The groups page lists it.
    await page.goto(`${app.url}/ui/#/groups`);
    const row = page.locator('tr[data-group="billing"]');
    await row.waitFor({ timeout: UI_WAIT_MS });
    await expect(row.locator('td').nth(1).textContent()).resolves.toBe('Stable');
    await expect(row.locator('td').nth(2).textContent()).resolves.toBe('1');
    await eventually(
      async () => (await page.locator('table.groups tbody tr').count()) === 4,
      'all four groups listed',
      UI_WAIT_MS,
    );
    await row.locator('td.lag-status .badge').waitFor({ timeout: UI_WAIT_MS });
    // Its lag in numbers (40, 50, 60, 70 committed against 100 each) and in time (reported just now).
    await expect(row.locator('td.lag-total').textContent()).resolves.toBe('180');
    await expect(row.locator('td.time-lag').textContent()).resolves.toMatch(/^\d+(\.\d)? s$/);
    await shoot('groups');

    // The text filter keeps the matching groups only.
    await page.locator('input[name="filter"]').fill('payments');
    await eventually(
      async () => (await page.locator('table.groups tbody tr').count()) === 2,
      'two groups match "payments"',
      UI_WAIT_MS,
    );
    await expect(page.locator('tr[data-group="payments-eu"] td').nth(1).textContent()).resolves.toBe('Empty');
    await page.locator('input[name="filter"]').fill('');

    // Its page: the member with its client id and assignment, lag per partition.
    await row.locator('a').click();
    await page.waitForURL(/#\/groups\/billing$/);
    const members = page.locator('table.members tbody tr');
    await eventually(async () => (await members.count()) === 1, 'one member shown', UI_WAIT_MS);
    await expect(members.first().textContent()).resolves.toContain('billing-a');
    await expect(members.first().locator('td.assignment').textContent()).resolves.toBe('orders: 0-3');
    const lagOf = (partition: number) =>
      page.locator(`table.lag tr[data-partition="orders-${partition}"] td.lag-value`);
    await eventually(async () => (await lagOf(0).count()) === 1, 'lag rows shown', UI_WAIT_MS);
    await expect(lagOf(0).textContent()).resolves.toBe('60');
    await expect(lagOf(3).textContent()).resolves.toBe('30');
    await expect(page.locator('table.lag tr[data-partition="orders-0"] td.time-lag').textContent()).resolves.toMatch(
      /^\d+(\.\d)? s$/,
    );
    await expect(page.locator('dd.time-lag').textContent()).resolves.toMatch(/^\d+(\.\d)? s$/);
    // The owner of a partition: member id, client id and host (members of one application share a client id).
    const owner = page.locator('table.lag tr[data-partition="orders-0"] td.owner-cell');
    await expect(owner.locator('.member-id').textContent()).resolves.toBe(first.memberId);
    await expect(owner.textContent()).resolves.toMatch(/billing-a · \S+/);
    await expect(page.locator('table.lag tr[data-partition="orders-0"] svg.spark polyline').count()).resolves.toBe(1);
    await expect(page.locator('ol.timeline li[data-generation="1"]').count()).resolves.toBe(1);

    // A second member joins: without a reload, the page shows generation 2 and both members.
    const second = await pool.member('billing', { clientId: 'billing-b' });
    second.start();
    await eventually(() => settledTogether([first, second]), 'both members settled');
    await page.locator('ol.timeline li[data-generation="2"]').waitFor({ timeout: UI_WAIT_MS });
    await eventually(async () => (await members.count()) === 2, 'two members shown', UI_WAIT_MS);
    await expect(page.locator('table.members').textContent()).resolves.toContain('billing-b');
    await expect(page.locator('ol.timeline li[data-generation="2"] .reason').textContent()).resolves.toMatch(/\S/);
    await eventually(
      async () => (await page.locator('.group-state').textContent()) === 'Stable',
      'Stable again',
      UI_WAIT_MS,
    );
    await shoot('group');

    // Deleting a group with members cannot be asked for: the button is disabled and the page says why.
    const deleteButton = page.getByRole('button', { name: 'Delete group…' });
    await expect(deleteButton.isDisabled()).resolves.toBe(true);
    await expect(page.locator('#delete-refusal').textContent()).resolves.toBe(
      'The group has 2 members: only an Empty group can be deleted (stop its consumers first).',
    );
    await expect(deleteButton.getAttribute('title')).resolves.toContain('only an Empty group can be deleted');

    // The group made Empty, a reset to offset 25: the preview shows current → new, nothing changes until confirmed.
    for (const member of [first, second]) {
      await member.stop();
      await member.leave();
    }
    await eventually(
      async () => (await page.locator('.group-state').textContent()) === 'Empty',
      'the page shows the group Empty',
      UI_WAIT_MS,
    );
    await expect(deleteButton.isEnabled()).resolves.toBe(true);
    await expect(page.locator('#delete-refusal').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Reset offsets…' }).click();
    const dialog = page.locator('dialog.reset');
    await dialog.locator('select[name="strategy"]').selectOption('offset');
    await dialog.locator('input[name="value"]').fill('25');
    await dialog.getByRole('button', { name: 'Preview' }).click();
    const preview = dialog.locator('.preview tr[data-partition="orders-0"]');
    await preview.waitFor({ timeout: UI_WAIT_MS });
    await expect(preview.locator('td').nth(2).textContent()).resolves.toBe('40');
    await expect(preview.locator('td').nth(3).textContent()).resolves.toBe('25');
    await expect(dialog.locator('.preview tbody tr').count()).resolves.toBe(4);
    await shoot('offset-reset-preview');
    const unchanged = await app.http().get('/v1/groups/billing/offsets').expect(200);
    expect(committedOffsets(unchanged.body)).toEqual([40, 50, 60, 70]);

    await dialog.getByRole('button', { name: 'Execute…' }).click();
    await dialog.getByRole('button', { name: 'Yes, reset offsets' }).click();
    await page.locator('.notice').waitFor({ timeout: UI_WAIT_MS });
    const committedOf = (partition: number) =>
      page.locator(`table.lag tr[data-partition="orders-${partition}"] td.committed`);
    await eventually(async () => (await committedOf(3).textContent()) === '25', 'the new offsets shown', UI_WAIT_MS);
    await expect(committedOf(0).textContent()).resolves.toBe('25');
    await expect(lagOf(0).textContent()).resolves.toBe('75');
    const reset = await app.http().get('/v1/groups/billing/offsets').expect(200);
    expect(committedOffsets(reset.body)).toEqual([25, 25, 25, 25]);
  });

  it('serves the page at /ui with a policy that allows only its own scripts, and the cluster and topics pages', async () => {
    const index = await app.http().get('/ui/').expect(200);
    expect(index.text).toContain('/ui/app.js');
    expect(index.headers['content-security-policy']).toContain("default-src 'self'");

    await page.goto(`${app.url}/ui/#/cluster`);
    const partitions = page.locator('table.partitions tbody tr');
    await eventually(async () => (await partitions.count()) === 50, 'fifty offsets partitions', UI_WAIT_MS);
    await expect(page.locator('table.nodes tbody tr').count()).resolves.toBe(1);
    await expect(page.locator('table.nodes tbody tr').textContent()).resolves.toContain('alive');
    await expect(page.locator('.under-replicated-count').textContent()).resolves.toBe('0');
    // The controller tile names a node, not a count.
    await expect(page.locator('.tiles .tile:has(strong.controller)').textContent()).resolves.toBe(
      'node 0is the controller',
    );
    await shoot('cluster');

    await page.getByRole('link', { name: 'Topics' }).click();
    await page.locator('tr[data-topic="payments"]').waitFor({ timeout: UI_WAIT_MS });
    await expect(page.locator('tr[data-topic="orders"] td').nth(1).textContent()).resolves.toBe('4');
    await shoot('topics');

    // A topic's page: its partitions with the reported offsets, and the groups consuming it with their lag on it.
    await page.locator('tr[data-topic="payments"] a').click();
    await page.waitForURL(/#\/topics\/payments$/);
    const consumers = page.locator('table.consumers tbody tr');
    await eventually(async () => (await consumers.count()) === 3, 'the three groups consuming payments', UI_WAIT_MS);
    await expect(consumers.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-group')))).resolves.toEqual([
      'payments-eu',
      'payments-us',
      'search-indexer',
    ]);
    const eu = page.locator('table.consumers tr[data-group="payments-eu"]');
    await eventually(
      async () => (await eu.locator('td.lag-total').textContent()) === '4',
      'its lag on payments',
      UI_WAIT_MS,
    );
    await expect(eu.locator('td.time-lag').textContent()).resolves.toMatch(/\d/);
    await expect(page.locator('table.topic-partitions tr[data-partition="0"] td').nth(2).textContent()).resolves.toBe(
      '9',
    );
    await shoot('topic');
    await eu.locator('a').click();
    await page.waitForURL(/#\/groups\/payments-eu$/);
  });
});

/** `GET /v1/groups/:id/offsets` committed offsets of `orders`, by partition. */
function committedOffsets(body: {
  offsets: { topic: string; partition: number; committedOffset: number }[];
}): number[] {
  return body.offsets
    .filter((o) => o.topic === 'orders')
    .sort((a, b) => a.partition - b.partition)
    .map((o) => o.committedOffset);
}
