import type { Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { CohortClient, type ConsumerGroupMember, type TopicPartitions } from '@cohort/client';
import { BROWSER_BUNDLE, ensurePackagesBuilt } from '../support/built-packages';
import { type Chromium, launchChromium } from '../support/chromium';
import { eventually } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { serveStatic, type StaticServer } from '../support/static-server';
import { type RunningApp, startApp, tempDataDir } from '../support/test-app';

// Launching Chromium and (when stale) building the bundle take a while on a loaded machine.
jest.setTimeout(240_000);

const GROUP = 'browser-static-group';
const TOPIC = 'orders';
const INSTANCE = 'dashboard-tab-1';

/** The page runs a static consumer-protocol member from the ES module bundle, steered through window.cohortTest. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>static member</title><link rel="icon" href="data:,"></head>
<body><script type="module">
import { CohortClient } from '/cohort-client.mjs';
const timeline = [];
let member = null;
window.cohortTest = {
  async start(url, groupId, topic, instanceId) {
    const client = new CohortClient({ urls: [url], clientId: 'static-tab' });
    member = client.member({ groupId, groupProtocol: 'consumer', topics: [topic], groupInstanceId: instanceId, autoCommit: false });
    for (const name of ['assigned', 'revoked', 'lost']) member.on(name, (e) => { timeline.push({ event: name, partitions: e.partitions }); });
    member.on('crash', (e) => timeline.push({ event: 'crash', name: e.name, message: e.message }));
    await member.start();
    return member.memberId;
  },
  snapshot: () => ({ state: member?.state ?? null, memberId: member?.memberId ?? null, assignment: member?.assignment ?? [], timeline }),
};
document.title = 'ready';
</script></body></html>`;

interface Snapshot {
  state: string | null;
  memberId: string | null;
  assignment: TopicPartitions[];
  timeline: { event: string; partitions?: TopicPartitions[]; name?: string }[];
}

const partitionsOf = (assignment: TopicPartitions[]): number[] =>
  assignment.flatMap((tp) => tp.partitions).sort((a, b) => a - b);

/**
 * A static member (groupInstanceId) of a consumer group in Debian's Chromium: on `pagehide` it leaves
 * with epoch -2, so the coordinator keeps its partitions, and the reloaded page — a new member id with
 * the same instance id, within the session timeout — gets them back without anyone else's moving.
 */
describe('@cohort/client static consumer-protocol member across a page reload (e2e)', () => {
  const data = tempDataDir();
  let site: StaticServer;
  let node: RunningApp;
  let browser: Chromium;
  let page: Page;
  let nodeClient: CohortClient;
  let admin: Socket;

  const ready = async (): Promise<void> => {
    await page.waitForFunction(
      () => (globalThis as unknown as { document: { title: string } }).document.title === 'ready',
      undefined,
      { timeout: 30_000 },
    );
  };
  const startInPage = (): Promise<string> =>
    page.evaluate(
      ([url, group, topic, instance]) =>
        (
          globalThis as unknown as {
            cohortTest: { start(u: string, g: string, t: string, i: string): Promise<string> };
          }
        ).cohortTest.start(url, group, topic, instance),
      [node.url, GROUP, TOPIC, INSTANCE] as const,
    );
  const snapshot = (): Promise<Snapshot> =>
    page.evaluate(() => (globalThis as unknown as { cohortTest: { snapshot(): Snapshot } }).cohortTest.snapshot());
  const describeGroup = async (): Promise<P.DescribedConsumerGroup> =>
    (await emit(admin, 'ConsumerGroupDescribe', { groupIds: [GROUP] })).groups[0];

  beforeAll(async () => {
    await ensurePackagesBuilt();
    site = await serveStatic({
      '/': { body: PAGE, type: 'text/html; charset=utf-8' },
      '/cohort-client.mjs': { file: BROWSER_BUNDLE.esm, type: 'text/javascript' },
    });
    node = await startApp({ DATA_DIR: data.dir, CORS_ORIGINS: site.origin });
    await fetch(`${node.url}/v1/topics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: TOPIC, partitions: 4 }),
    });
    admin = await connect(node.url);
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${site.origin}/`);
    await ready();
  });
  afterAll(async () => {
    admin?.disconnect();
    await nodeClient?.close().catch(() => undefined);
    await browser?.close();
    await node?.close();
    await site?.close();
    data.remove();
  });

  it('leaves with epoch -2 on pagehide and, reloaded, takes back its own partitions while the other member keeps its own', async () => {
    nodeClient = new CohortClient({ urls: [node.url], clientId: 'node-member' });
    const other: ConsumerGroupMember = nodeClient.member({
      groupId: GROUP,
      groupProtocol: 'consumer',
      topics: [TOPIC],
    });
    await other.start();

    const firstId = await startInPage();
    await eventually(
      async () =>
        partitionsOf((await snapshot()).assignment).length === 2 &&
        partitionsOf(other.assignment).length === 2 &&
        (await snapshot()).state === 'stable' &&
        other.state === 'stable',
      'a 2 + 2 split between the tab and the Node member',
      30_000,
    );
    const tabHeld = partitionsOf((await snapshot()).assignment);
    const otherHeld = partitionsOf(other.assignment);
    expect([...tabHeld, ...otherHeld].sort()).toEqual([0, 1, 2, 3]);
    const moves: string[] = [];
    for (const event of ['assigned', 'revoked', 'lost'] as const)
      other.on(event, (e) => {
        moves.push(`${event} ${partitionsOf(e.partitions).join(',')}`);
      });
    const epochBefore = (await describeGroup()).groupEpoch;

    // The reload: pagehide sends the leave for now; the coordinator keeps the member and its partitions.
    await page.reload();
    await ready();
    await eventually(
      async () => (await describeGroup()).members.find((m) => m.memberId === firstId)?.memberEpoch === -2,
      'the old page to have left with epoch -2',
      10_000,
    );
    const away = await describeGroup();
    expect(away.members.find((m) => m.memberId === firstId)?.instanceId).toBe(INSTANCE);

    const secondId = await startInPage();
    expect(secondId).not.toBe(firstId);
    await eventually(async () => (await snapshot()).state === 'stable', 'the reloaded tab to be stable', 30_000);
    const back = await snapshot();
    expect(partitionsOf(back.assignment)).toEqual(tabHeld);
    expect(back.timeline).toEqual([{ event: 'assigned', partitions: [{ topic: TOPIC, partitions: tabHeld }] }]);

    // Nobody else moved: the Node member kept its partitions throughout and was never told otherwise.
    expect(partitionsOf(other.assignment)).toEqual(otherHeld);
    expect(moves).toEqual([]);
    const group = await describeGroup();
    expect(group.members.map((m) => m.memberId).sort()).toEqual([other.memberId, secondId].sort());
    expect(group.members.find((m) => m.memberId === secondId)).toMatchObject({ instanceId: INSTANCE });
    // The replacement took the old member's place: the group epoch did not move for it.
    expect(group.groupEpoch).toBe(epochBefore);
    expect(browser.errors).toEqual([]);
  });
});
