import type { Page } from 'playwright-core';
import request from 'supertest';
import { CohortClient } from '@cohort/client';
import { partitionFor } from '@cohort/protocol';
import { BROWSER_BUNDLE, ensurePackagesBuilt } from '../support/built-packages';
import { type Chromium, launchChromium } from '../support/chromium';
import { eventually } from '../support/group-member';
import { holdings, MemberTimeline } from '../support/member-timeline';
import { serveStatic, type StaticServer } from '../support/static-server';
import { ClusterHarness, PARTITIONS } from './cluster-harness';

// Three nodes, a build of the bundle when stale, Chromium, and a session timeout to run out.
jest.setTimeout(240_000);

const TOPIC = 'ledger';

/** A tab running a member from the browser bundle, given one URL, observed through window.cohortTest. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Cohort member in a tab</title><link rel="icon" href="data:,"></head>
<body><script type="module">
import { CohortClient } from '/cohort-client.mjs';
const timeline = [];
let client = null;
let member = null;
const keys = (list) => list.flatMap((tp) => tp.partitions.map((p) => tp.topic + '-' + p));
window.cohortTest = {
  async start(url, groupId, topic) {
    client = new CohortClient({ urls: [url], clientId: 'tab' });
    member = client.member({ groupId, topics: [topic], autoCommit: false, heartbeatIntervalMs: 1000, sessionTimeoutMs: 6000 });
    for (const name of ['assigned', 'revoked', 'lost'])
      member.on(name, (e) => { timeline.push({ event: name, partitions: keys(e.partitions), at: Date.now() }); });
    await member.start();
  },
  snapshot: () => ({ state: member.state, assignment: keys(member.assignment), nodes: client.nodes, timeline }),
  mark(topic, partition, offset) {
    try { return member.markProcessed({ topic, partition, offset }); } catch (e) { return e.name; }
  },
};
document.title = 'ready';
</script></body></html>`;

interface Snapshot {
  state: string;
  assignment: string[];
  nodes: { nodeId: number; url: string }[];
  timeline: { event: string; partitions: string[]; at: number }[];
}

/**
 * The SDK in Chromium against a 3-node cluster: a tab given one URL learns the cluster from it; cut off
 * from the network while that node (bootstrap and coordinator at once) is SIGKILLed, it fences itself
 * before the coordinator gives its partitions to a Node member; back online, it finds the new
 * coordinator through the nodes it learned, the dead URL never coming back.
 */
describe('@cohort/client in a browser, 3-node cluster (e2e)', () => {
  const cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  let site: StaticServer;
  let browser: Chromium;
  let page: Page;
  let nodeClient: CohortClient | undefined;

  beforeAll(async () => {
    await ensurePackagesBuilt();
    site = await serveStatic({
      '/': { body: PAGE, type: 'text/html; charset=utf-8' },
      '/cohort-client.mjs': { file: BROWSER_BUNDLE.esm, type: 'text/javascript' },
    });
    // The page is on its own origin: every node must allow it, as a real deployment does.
    for (const id of [0, 1, 2]) await cluster.startNode(id, { CORS_ORIGINS: site.origin });
    await cluster.formed(0, 'all partitions led with a full ISR');
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${site.origin}/`);
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { title: string } }).document.title === 'ready',
      undefined,
      { timeout: 30_000 },
    );
  });
  afterAll(async () => {
    await nodeClient?.close().catch(() => undefined);
    await browser?.close();
    await cluster.dispose();
    await site?.close();
  });

  const snapshot = (): Promise<Snapshot> =>
    page.evaluate(() => (globalThis as unknown as { cohortTest: { snapshot(): Snapshot } }).cohortTest.snapshot());

  it('a tab cut off while its only node is SIGKILLed fences itself before a Node member gets its partitions, then finds the new coordinator through the nodes it learned', async () => {
    const node0 = cluster.nodes.get(0)!;
    await request(node0.url).post('/v1/topics').send({ name: TOPIC, partitions: 4 }).expect(201);
    for (const n of cluster.nodes.values())
      await eventually(async () => (await request(n.url).get(`/v1/topics/${TOPIC}`)).status === 200, 'the topic');
    const { body: partitions } = await request(node0.url).get('/v1/cluster/partitions').expect(200);
    const leaderOf = (p: number) => (partitions as { partition: number; leader: number }[])[p].leader;
    let groupId = '';
    for (let i = 0; !groupId; i++) if (leaderOf(partitionFor(`tab-${i}`, PARTITIONS)) === 0) groupId = `tab-${i}`;

    // A Node member with the same single URL and a longer session: it outlives the failover.
    nodeClient = new CohortClient({ urls: [node0.url], clientId: 'node-member' });
    const timeline = new MemberTimeline();
    const nodeMember = timeline.watch(
      'node',
      nodeClient.member({
        groupId,
        topics: [TOPIC],
        autoCommit: false,
        heartbeatIntervalMs: 1000,
        sessionTimeoutMs: 20_000,
      }),
    );
    const wallClock: Record<string, number> = {};
    nodeMember.on('assigned', (e) => {
      for (const tp of e.partitions) for (const p of tp.partitions) wallClock[`${tp.topic}-${p}`] ??= Date.now();
    });
    await nodeMember.start();
    await page.evaluate(
      ([url, group, topic]) =>
        (
          globalThis as unknown as { cohortTest: { start(u: string, g: string, t: string): Promise<void> } }
        ).cohortTest.start(url, group, topic),
      [node0.url, groupId, TOPIC] as const,
    );
    await eventually(
      async () => (await snapshot()).assignment.length === 2 && holdings({ nodeMember }).nodeMember.length === 2,
      'a 2 + 2 split',
      30_000,
    );
    const tab = await snapshot();
    expect(tab.nodes).toEqual([...cluster.nodes.values()].map((n) => ({ nodeId: n.nodeId, url: n.url })));
    for (const p of tab.assignment) delete wallClock[p];

    await browser.context.setOffline(true); // the tab reaches no node at all
    await cluster.kill(0); // and its only URL, the group's coordinator, dies for good

    await eventually(
      () => holdings({ nodeMember }).nodeMember.length === 4,
      'the Node member gets the tab’s partitions',
      90_000,
    );
    const fenced = await snapshot();
    const lost = fenced.timeline.filter((e) => e.event === 'lost');
    expect(lost.map((e) => [...e.partitions].sort())).toEqual([[...tab.assignment].sort()]);
    // The tab let go (its own clock) before the Node member took them (the same machine's clock).
    for (const p of tab.assignment) expect(wallClock[p]).toBeGreaterThan(lost[0].at);
    expect(
      await page.evaluate(
        (topic) =>
          (globalThis as unknown as { cohortTest: { mark(t: string, p: number, o: number): unknown } }).cohortTest.mark(
            topic,
            0,
            1,
          ),
        TOPIC,
      ),
    ).toBe('SESSION_EXPIRED');
    console.log(
      `tab cut off: lost its partitions ${Math.min(...tab.assignment.map((p) => wallClock[p])) - lost[0].at} ms before the Node member got them`,
    );

    await browser.context.setOffline(false);
    await eventually(
      async () => {
        const now = await snapshot();
        return now.state === 'stable' && now.assignment.length > 0 && holdings({ nodeMember }).nodeMember.length < 4;
      },
      'the tab back in the group through nodes 1 and 2',
      90_000,
    );
    const back = await snapshot();
    expect([...back.assignment, ...holdings({ nodeMember }).nodeMember].sort()).toEqual(
      [0, 1, 2, 3].map((p) => `${TOPIC}-${p}`),
    );
    expect(cluster.nodes.has(0)).toBe(false);
    // Chromium logs every refused WebSocket (offline, then the dead node) on the console; nothing else went wrong.
    expect(
      browser.errors.filter(
        (e) =>
          !/^console: WebSocket connection to .* failed: .*net::ERR_(INTERNET_DISCONNECTED|CONNECTION_REFUSED)/.test(e),
      ),
    ).toEqual([]);
  });
});
