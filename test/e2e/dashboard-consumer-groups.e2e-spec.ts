import type { Page } from 'playwright-core';
import type { Socket } from 'socket.io-client';
import { appPerFile } from '../support/app-per-file';
import { writeTokensFile } from '../support/auth-fixtures';
import { ConsumerProtocolMember, reconcileAll } from '../support/consumer-protocol-member';
import { buildDashboardAssets, type DashboardBrowser, launchDashboardBrowser } from '../support/dashboard-browser';
import { eventually } from '../support/group-member';
import type * as P from '@cohort/protocol';
import { connect, request as emit } from '../support/socket-client';
import { tempDataDir } from '../support/test-app';

// A real browser against a real node: launching Chromium alone can take seconds on a loaded machine.
jest.setTimeout(90_000);

/** How long the page may take to show what the node already knows: a few of its polling intervals. */
const UI_WAIT_MS = 15_000;
const ADMIN_TOKEN = 'dashboard-consumer-token';

const tokens = tempDataDir('cohort-dashboard-cg-');
const app = appPerFile({
  env: {
    AUTH_TOKENS_FILE: writeTokensFile(tokens.dir, { 'User:admin': ADMIN_TOKEN }),
    SUPER_USERS: 'User:admin',
    GROUP_SHARE_AUTO_OFFSET_RESET: 'earliest',
  },
});
const sockets: Socket[] = [];
afterAll(() => {
  for (const socket of sockets) socket.disconnect();
  tokens.remove();
});

async function memberOf(memberId: string): Promise<ConsumerProtocolMember> {
  const socket = await connect(app.url, { token: ADMIN_TOKEN });
  sockets.push(socket);
  return new ConsumerProtocolMember(socket, 'cg-ui', memberId);
}

const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

/**
 * The dashboard shows a Kafka 4 consumer group (KIP-848), with authentication on: its type and state in
 * the list, and on its page the epochs, each member's assignment against its target with what it must
 * give up while it reconciles, and the epoch history with reasons, live as the members converge.
 */
describe('the dashboard shows consumer groups (e2e, Chromium, authentication on)', () => {
  let browser: DashboardBrowser;
  let page: Page;
  let a: ConsumerProtocolMember;
  let b: ConsumerProtocolMember;
  beforeAll(async () => {
    buildDashboardAssets();
    await app
      .http()
      .post('/v1/topics')
      .set({ authorization: `Bearer ${ADMIN_TOKEN}` })
      .send({ name: 'orders', partitions: 4 })
      .expect(201);
    a = await memberOf('member-a');
    b = await memberOf('member-b');
    await a.join(['orders']);
    await b.join(['orders']);
    await a.heartbeat(); // member-a must give two partitions up; member-b waits for them
    browser = await launchDashboardBrowser();
    page = await browser.context.newPage();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('lists it with its type and state, and shows its members reconciling, then converged, with its epoch history', async () => {
    await page.goto(`${app.url}/ui/#/groups`);
    const token = page.locator('form.token input[name="token"]');
    await token.waitFor({ timeout: UI_WAIT_MS });
    await token.fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    const row = page.locator('tr[data-group="cg-ui"]');
    await row.waitFor({ timeout: UI_WAIT_MS });
    await expect(row.locator('td').nth(1).textContent()).resolves.toBe('Reconciling');
    await expect(row.locator('td.group-type .badge').textContent()).resolves.toBe('consumer');

    await row.locator('a').click();
    await page.waitForURL(/#\/groups\/cg-ui$/);
    const memberA = page.locator('tr[data-member="member-a"]');
    const memberB = page.locator('tr[data-member="member-b"]');
    await memberA.waitFor({ timeout: UI_WAIT_MS });
    await expect(text(page, '.group-type')).resolves.toBe('consumer');
    await expect(text(page, '.group-state')).resolves.toBe('Reconciling');
    await expect(text(page, '.group-epoch')).resolves.toBe('2');
    await expect(text(page, '.assignment-epoch')).resolves.toBe('2');
    await expect(text(page, '.assignor')).resolves.toBe('uniform');
    await expect(memberA.locator('.member-epoch').textContent()).resolves.toBe('1');
    await expect(memberA.locator('.member-state').textContent()).resolves.toBe('UNREVOKED_PARTITIONS');
    await expect(memberA.locator('.pending-revocation').textContent()).resolves.toMatch(/^orders: /);
    await expect(memberA.getAttribute('class')).resolves.toBe('reconciling');
    await expect(memberB.locator('.member-state').textContent()).resolves.toBe('UNRELEASED_PARTITIONS');
    await expect(memberB.locator('.assignment').textContent()).resolves.toBe('nothing');
    // What member-b waits for is what member-a still has to give up.
    await expect(memberB.locator('.target').textContent()).resolves.toBe(
      await memberA.locator('.pending-revocation').textContent(),
    );

    // The members reconcile; the page follows by itself.
    await reconcileAll([a, b]);
    await eventually(async () => (await text(page, '.group-state')) === 'Stable', 'the page shows Stable', UI_WAIT_MS);
    for (const member of [memberA, memberB]) {
      await expect(member.locator('.member-state').textContent()).resolves.toBe('STABLE');
      await expect(member.locator('.pending-revocation').textContent()).resolves.toBe('—');
      await expect(member.locator('.assignment').textContent()).resolves.toBe(
        await member.locator('.target').textContent(),
      );
      await expect(member.getAttribute('class')).resolves.toBe('');
    }
    const bump = page.locator('.timeline li[data-epoch="2"]');
    await expect(bump.locator('.reason').textContent()).resolves.toBe('member-joined');
    await expect(bump.locator('.tag').textContent()).resolves.toBe('member-b');
    await expect(bump.locator('.outcome').textContent()).resolves.toMatch(/2 members · converged in /);
    await expect(page.locator('.timeline li[data-epoch="1"] .reason').textContent()).resolves.toBe('member-joined');
    expect(browser.errors.filter((e) => !e.includes('401'))).toEqual([]);
  });

  it('shows a share group: its member, each share partition with SPSO and offsets by state, redelivers a dead letter, and resets SPSO once the group is Empty', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    await app.http().post('/v1/topics').set(admin).send({ name: 'jobs', partitions: 1 }).expect(201);
    await app
      .http()
      .put('/v1/topics/jobs/end-offsets')
      .set(admin)
      .send({ partitions: [{ partition: 0, endOffset: 6 }] })
      .expect(200);
    const socket = await connect(app.url, { token: ADMIN_TOKEN });
    sockets.push(socket);
    let epoch = 0;
    await eventually(
      async () => {
        const answer = await emit(socket, 'ShareGroupHeartbeat', {
          groupId: 'workers',
          memberId: 'worker-1',
          memberEpoch: epoch,
          subscribedTopicNames: ['jobs'],
        } as P.ShareGroupHeartbeatRequest);
        epoch = answer.memberEpoch;
        return (answer.assignment?.topicPartitions ?? []).length > 0;
      },
      'worker-1 is assigned jobs-0',
      UI_WAIT_MS,
    );
    await emit(socket, 'ShareAcquire', {
      groupId: 'workers',
      memberId: 'worker-1',
      maxRecords: 5,
    } as P.ShareAcquireRequest);
    await emit(socket, 'ShareAcknowledge', {
      groupId: 'workers',
      memberId: 'worker-1',
      acknowledgements: [
        { topic: 'jobs', partition: 0, batches: [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1, 3, 1] }] },
      ],
    } as P.ShareAcknowledgeRequest);

    await page.goto(`${app.url}/ui/#/groups/workers`);
    const partition = page.locator('tr[data-share-partition="jobs-0"]');
    await partition.waitFor({ timeout: UI_WAIT_MS });
    await expect(text(page, '.group-type')).resolves.toBe('share');
    await expect(text(page, '.group-state')).resolves.toBe('Stable');
    await expect(page.locator('tr[data-member="worker-1"]').count()).resolves.toBe(1);
    await expect(partition.locator('.spso').textContent()).resolves.toBe('3');
    await expect(partition.locator('.acquired').textContent()).resolves.toBe('2');
    await expect(partition.locator('.available').textContent()).resolves.toBe('1');
    const dead = page.locator('tr[data-dead-letter="jobs-0-1"]');
    await dead.waitFor({ timeout: UI_WAIT_MS });
    await expect(dead.locator('.reason').textContent()).resolves.toBe('rejected');

    await dead.getByRole('button', { name: 'Redeliver…' }).click();
    await page.getByRole('button', { name: 'Yes, redeliver' }).click();
    await eventually(async () => (await dead.count()) === 0, 'the dead letter is gone', UI_WAIT_MS);
    await eventually(
      async () => (await partition.locator('.spso').textContent()) === '1',
      'SPSO moved back to the redelivered offset',
      UI_WAIT_MS,
    );

    // Once the member left, an offset reset moves SPSO: the preview shows it, executing writes it.
    const left = await emit(socket, 'ShareGroupHeartbeat', {
      groupId: 'workers',
      memberId: 'worker-1',
      memberEpoch: -1,
    } as P.ShareGroupHeartbeatRequest);
    expect(left.errorCode).toBe(0);
    await eventually(async () => (await text(page, '.group-state')) === 'Empty', 'the group shows Empty', UI_WAIT_MS);
    await page.getByRole('button', { name: 'Reset offsets…' }).click();
    const dialog = page.locator('dialog.reset');
    await dialog.locator('select[name="strategy"]').selectOption('offset');
    await dialog.locator('input[name="value"]').fill('4');
    await dialog.getByRole('button', { name: 'Preview' }).click();
    const preview = dialog.locator('.preview tr[data-partition="jobs-0"]');
    await preview.waitFor({ timeout: UI_WAIT_MS });
    await expect(preview.locator('td').nth(2).textContent()).resolves.toBe('1');
    await expect(preview.locator('td').nth(3).textContent()).resolves.toBe('4');
    await dialog.getByRole('button', { name: 'Execute…' }).click();
    await dialog.getByRole('button', { name: 'Yes, reset offsets' }).click();
    await eventually(
      async () => (await partition.locator('.spso').textContent()) === '4',
      'SPSO moved to the reset offset',
      UI_WAIT_MS,
    );
    const described = await app.http().get('/v1/groups/workers').set(admin).expect(200);
    expect(described.body.sharePartitions[0]).toMatchObject({ startOffset: 4, stateEpoch: 2 });
    expect(browser.errors.filter((e) => !e.includes('401'))).toEqual([]);
  });
});
