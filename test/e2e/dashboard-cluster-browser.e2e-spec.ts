import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { buildDashboardAssets, type DashboardBrowser, launchDashboardBrowser } from '../support/dashboard-browser';
import { eventually, GroupMember, settledTogether } from '../support/group-member';
import { ClusterHarness, PARTITIONS } from './cluster-harness';

// Three nodes forming over Redis, then a real browser: a loaded machine needs time for both.
jest.setTimeout(120_000);

const SHOTS = resolve(__dirname, '..', '..', '.screenshots');
const UI_WAIT_MS = 20_000;

/** In cluster mode the dashboard of any node shows the whole cluster (docs/dashboard.md). */
describe('dashboard in a browser, cluster mode (e2e)', () => {
  const cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const url = (id: number) => cluster.nodes.get(id)!.url;
  let browser: DashboardBrowser | undefined;
  let member: GroupMember | undefined;

  beforeAll(async () => {
    buildDashboardAssets();
    mkdirSync(SHOTS, { recursive: true });
    for (const id of [0, 1, 2]) await cluster.startNode(id);
    await cluster.formed(0, 'all partitions led with a full ISR');
    browser = await launchDashboardBrowser();
  });
  afterAll(async () => {
    await member?.vanish();
    await browser?.close();
    await cluster.dispose();
  });

  it("shows, on a node that does not coordinate it, a group's members; every node of the cluster; a stopped node's partitions under-replicated", async () => {
    await request(url(0)).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
    await eventually(
      async () => (await request(url(2)).get('/v1/topics/ledger')).status === 200,
      'the topic on every node',
    );
    let groupId = '';
    for (let i = 0; !groupId && i < 200; i++) {
      const { body } = await request(url(0))
        .get('/v1/coordinator')
        .query({ groupId: `ledger-${i}` })
        .expect(200);
      if (body.nodeId === 2) groupId = `ledger-${i}`;
    }
    expect(groupId).not.toBe('');
    member = await GroupMember.connect(url(2), groupId, { topics: ['ledger'], clientId: 'ledger-writer' });
    member.start();
    await eventually(() => settledTogether([member!]), 'the member settled');

    const page = await browser!.context.newPage();
    await page.goto(`${url(0)}/ui/#/groups`);
    const row = page.locator(`tr[data-group="${groupId}"]`);
    await row.waitFor({ timeout: UI_WAIT_MS });
    // The coordinator column (after the group, state, members, lag, time lag, lag status and protocol type).
    await expect(row.locator('td').nth(7).textContent()).resolves.toBe('2');

    await row.locator('a').click();
    const members = page.locator('table.members tbody tr');
    await eventually(async () => (await members.count()) === 1, "the group's member shown by node 0", UI_WAIT_MS);
    await expect(members.first().textContent()).resolves.toContain('ledger-writer');
    await expect(members.first().locator('td.assignment').textContent()).resolves.toBe('ledger: 0-3');

    // The topic's page on node 0 lists the group that node 2 coordinates as consuming it.
    await page.goto(`${url(0)}/ui/#/topics/ledger`);
    await page.locator(`table.consumers tr[data-group="${groupId}"]`).waitFor({ timeout: UI_WAIT_MS });

    await page.goto(`${url(1)}/ui/#/cluster`);
    const nodes = page.locator('table.nodes tbody tr');
    await eventually(async () => (await nodes.count()) === 3, 'three nodes', UI_WAIT_MS);
    await expect(page.locator('table.partitions tbody tr').count()).resolves.toBe(PARTITIONS);
    for (const id of [0, 1, 2])
      await expect(page.locator(`table.nodes tr[data-node="${id}"]`).textContent()).resolves.toContain('alive');
    await expect(page.locator('.under-replicated-count').textContent()).resolves.toBe('0');
    await expect(page.locator('table.partitions tr[data-partition="0"] td').nth(4).textContent()).resolves.toMatch(
      /^\d, \d, \d$/,
    );
    await page.screenshot({ path: join(SHOTS, 'cluster-three-nodes.png'), fullPage: true });

    // Node 0 stops: without reloading, the page shows it gone and its partitions under-replicated.
    const stopped = cluster.nodes.get(0)!;
    cluster.nodes.delete(0);
    await stopped.app.close();
    await page.locator('table.nodes tr[data-node="0"].bad').waitFor({ timeout: 60_000 });
    await eventually(
      async () => Number(await page.locator('.under-replicated-count').textContent()) > 0,
      'under-replicated partitions marked',
      60_000,
    );
    await expect(page.locator('table.partitions tr.warn').count()).resolves.toBeGreaterThan(0);
    await expect(page.locator('table.partitions tr.warn').first().textContent()).resolves.toContain('under-replicated');
    await page.screenshot({ path: join(SHOTS, 'cluster-under-replicated.png'), fullPage: true });
    await page.close();
  });
});
