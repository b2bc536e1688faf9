import type { Page } from 'playwright-core';
import { CohortClient, type CohortMember, type TopicPartitions } from '@cohort/client';
import { BROWSER_BUNDLE, ensurePackagesBuilt } from '../support/built-packages';
import { type Chromium, launchChromium } from '../support/chromium';
import { eventually } from '../support/group-member';
import { serveStatic, type StaticServer } from '../support/static-server';
import { type RunningApp, startApp, tempDataDir } from '../support/test-app';

// Launching Chromium and (when stale) building the bundle take a while on a loaded machine.
jest.setTimeout(240_000);

const GROUP = 'browser-tab-group';
const TOPIC = 'orders';

/**
 * The page loads the browser bundle twice, as a plain script (the `Cohort` global) and as an ES module,
 * and drives a member through window.cohortTest so the test can steer and observe it.
 */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Cohort member in a tab</title><link rel="icon" href="data:,">
<script src="/cohort-client.global.js"></script></head>
<body><script type="module">
import { CohortClient, CohortError } from '/cohort-client.mjs';
const timeline = [];
let client = null;
let member = null;
window.cohortTest = {
  bundles: { global: typeof window.Cohort?.CohortClient, module: typeof CohortClient, error: typeof CohortError },
  async start(url, groupId, topic) {
    client = new CohortClient({ urls: [url], clientId: 'browser-tab' });
    member = client.member({ groupId, topics: [topic], autoCommit: false, heartbeatIntervalMs: 500 });
    for (const name of ['assigned', 'revoked', 'lost']) member.on(name, (e) => { timeline.push({ event: name, partitions: e.partitions }); });
    member.on('error', (e) => timeline.push({ event: 'error', name: e.name, message: e.message }));
    member.on('crash', (e) => timeline.push({ event: 'crash', name: e.name, message: e.message }));
    await member.start();
    return member.memberId;
  },
  snapshot: () => ({ state: member?.state ?? null, assignment: member?.assignment ?? [], timeline }),
  async commit(base) {
    for (const { topic, partitions } of member.assignment) for (const partition of partitions) member.markProcessed({ topic, partition, offset: base + partition });
    await member.commit();
    return member.committed();
  },
  async stop() { await member.stop(); await client.close(); },
};
document.title = 'ready';
</script></body></html>`;

interface Snapshot {
  state: string | null;
  assignment: TopicPartitions[];
  timeline: { event: string; partitions?: TopicPartitions[]; name?: string; message?: string }[];
}

const partitionsOf = (assignment: TopicPartitions[]): number[] =>
  assignment.flatMap((tp) => tp.partitions).sort((a, b) => a - b);

/** A member in Debian's Chromium, from the browser bundle, beside a Node member of the same group. */
describe('@cohort/client in a browser (e2e)', () => {
  const data = tempDataDir();
  let site: StaticServer;
  let node: RunningApp;
  let browser: Chromium;
  let page: Page;
  let nodeClient: CohortClient;

  beforeAll(async () => {
    await ensurePackagesBuilt();
    site = await serveStatic({
      '/': { body: PAGE, type: 'text/html; charset=utf-8' },
      '/cohort-client.global.js': { file: BROWSER_BUNDLE.global, type: 'text/javascript' },
      '/cohort-client.mjs': { file: BROWSER_BUNDLE.esm, type: 'text/javascript' },
    });
    // The page is on another origin than the node: it must be allowed, as a real deployment allows it.
    node = await startApp({ DATA_DIR: data.dir, CORS_ORIGINS: site.origin });
    await fetch(`${node.url}/v1/topics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: TOPIC, partitions: 4 }),
    });
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
    await node?.close();
    await site?.close();
    data.remove();
  });

  const snapshot = (): Promise<Snapshot> =>
    page.evaluate(() => (globalThis as unknown as { cohortTest: { snapshot(): Snapshot } }).cohortTest.snapshot());

  it('loads the bundle as a script global and as an ES module', async () => {
    const bundles = await page.evaluate(
      () => (globalThis as unknown as { cohortTest: { bundles: unknown } }).cohortTest.bundles,
    );
    expect(bundles).toEqual({ global: 'function', module: 'function', error: 'function' });
  });

  it('joins beside a Node member, takes its share, commits, and takes everything when the Node member leaves', async () => {
    nodeClient = new CohortClient({ urls: [node.url], clientId: 'node-member' });
    const nodeMember: CohortMember = nodeClient.member({ groupId: GROUP, topics: [TOPIC], heartbeatIntervalMs: 500 });
    await nodeMember.start();
    expect(partitionsOf(nodeMember.assignment)).toEqual([0, 1, 2, 3]);

    const pageMemberId = await page.evaluate(
      ([url, group, topic]) =>
        (
          globalThis as unknown as { cohortTest: { start(u: string, g: string, t: string): Promise<string> } }
        ).cohortTest.start(url, group, topic),
      [node.url, GROUP, TOPIC] as const,
    );
    expect(pageMemberId).toMatch(/\S/);
    // Shared: two partitions each, none held by both (cooperative-sticky moves two of the Node member's).
    await eventually(
      async () =>
        partitionsOf((await snapshot()).assignment).length === 2 && partitionsOf(nodeMember.assignment).length === 2,
      'a 2 + 2 split',
      30_000,
    );
    const mine = partitionsOf((await snapshot()).assignment);
    expect([...mine, ...partitionsOf(nodeMember.assignment)].sort()).toEqual([0, 1, 2, 3]);

    const committed = await page.evaluate(
      (base) =>
        (globalThis as unknown as { cohortTest: { commit(b: number): Promise<unknown> } }).cohortTest.commit(base),
      100,
    );
    expect(committed).toEqual(
      expect.arrayContaining(
        mine.map((partition) => expect.objectContaining({ topic: TOPIC, partition, offset: 100 + partition })),
      ),
    );
    const stored = (await (await fetch(`${node.url}/v1/groups/${GROUP}/offsets`)).json()) as {
      offsets: { partition: number; committedOffset: number }[];
    };
    expect(
      stored.offsets.filter((o) => mine.includes(o.partition)).map((o) => [o.partition, o.committedOffset]),
    ).toEqual(mine.map((p) => [p, 100 + p]));

    await nodeMember.stop();
    await eventually(
      async () => partitionsOf((await snapshot()).assignment).length === 4,
      'the tab to take every partition',
      30_000,
    );
    const after = await snapshot();
    expect(after.state).toBe('stable');
    expect(after.timeline.filter((entry) => entry.event === 'crash' || entry.event === 'lost')).toEqual([]);
    // The tab never gave up what it held: it only gained (cooperative), and its first partitions stayed.
    expect(
      after.timeline
        .filter((entry) => entry.event === 'revoked')
        .flatMap((entry) => partitionsOf(entry.partitions ?? [])),
    ).toEqual([]);

    await page.evaluate(() => (globalThis as unknown as { cohortTest: { stop(): Promise<void> } }).cohortTest.stop());
    const group = (await (await fetch(`${node.url}/v1/groups/${GROUP}`)).json()) as {
      state: string;
      members: unknown[];
    };
    expect(group).toMatchObject({ state: 'Empty', members: [] });
    expect(browser.errors).toEqual([]);
  });
});
