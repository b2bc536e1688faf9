import type { Page } from 'playwright-core';
import { appPerFile } from '../support/app-per-file';
import { writeTokensFile } from '../support/auth-fixtures';
import { buildDashboardAssets, type DashboardBrowser, launchDashboardBrowser } from '../support/dashboard-browser';
import { tempDataDir } from '../support/test-app';

// A real browser against a real node: launching Chromium alone can take seconds on a loaded machine.
jest.setTimeout(60_000);

/** How long the page may take to show what the node already knows: a few of its polling intervals. */
const UI_WAIT_MS = 15_000;
const ADMIN_TOKEN = 'dashboard-admin-token';

const tokens = tempDataDir('cohort-dashboard-auth-');
const app = appPerFile({
  env: {
    AUTH_TOKENS_FILE: writeTokensFile(tokens.dir, { 'User:admin': ADMIN_TOKEN }),
    SUPER_USERS: 'User:admin',
  },
});
afterAll(() => tokens.remove());

const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/**
 * The dashboard and the API documents on a node with authentication on (docs/security.md, "What needs
 * no credential"): what a browser loads is public, the data it shows is not.
 */
describe('the dashboard on a node with authentication (e2e)', () => {
  beforeAll(async () => {
    buildDashboardAssets();
    await app.http().post('/v1/topics').set(asAdmin).send({ name: 'orders', partitions: 2 }).expect(201);
    await app
      .http()
      .post('/v1/groups/billing/offsets')
      .set(asAdmin)
      .send({ topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 5 }] }] })
      .expect(200);
  });

  it('serves the page, its assets, GET / and every API document without a credential, and nothing of the cluster', async () => {
    const index = await app.http().get('/ui/').expect(200);
    expect(index.text).toContain('/ui/app.js');
    await app.http().get('/ui/app.js').expect(200);
    await app.http().get('/ui/styles.css').expect(200);
    await app.http().get('/').set('Accept', 'text/html').expect(302).expect('Location', '/ui/');
    await app.http().get('/').expect(200);
    await app.http().get('/docs').expect(200);
    await app.http().get('/docs/').expect(200);
    const openapi = await app.http().get('/docs-json').expect(200);
    expect(openapi.body).toMatchObject({ openapi: expect.stringMatching(/^3\./) });
    const asyncapi = await app.http().get('/docs/asyncapi.json').expect(200);
    expect(JSON.parse(asyncapi.text)).toMatchObject({ asyncapi: expect.stringMatching(/^3\./) });
    await app.http().get('/docs/asyncapi.yaml').expect(200);

    // The data stays behind the credential, whichever path leads there.
    for (const path of ['/v1/groups', '/metrics', '/v1/cluster', '/ui/../v1/groups', '/docs/../v1/groups']) {
      const refused = await app.http().get(path);
      expect({ path, status: refused.status }).toEqual({ path, status: 401 });
    }
    await app.http().post('/docs-json').expect(401);
  });

  describe('in Chromium', () => {
    let browser: DashboardBrowser;
    let page: Page;
    beforeAll(async () => {
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

    it('asks for the token, refuses a wrong one, and with the right one shows the groups, sending it on each call', async () => {
      const sent: (string | undefined)[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/v1/')) sent.push(request.headers().authorization);
      });
      await page.goto(`${app.url}/`);
      await page.waitForURL(/\/ui\/$/);
      const token = page.locator('form.token input[name="token"]');
      await token.waitFor({ timeout: UI_WAIT_MS });
      expect(sent[0]).toBeUndefined();

      await token.fill('not-the-token');
      await page.getByRole('button', { name: 'Use token' }).click();
      await page.locator('form.token .error').waitFor({ timeout: UI_WAIT_MS });
      await expect(page.locator('form.token .error').textContent()).resolves.toContain('SASL_AUTHENTICATION_FAILED');
      await expect(page.locator('tr[data-group="billing"]').count()).resolves.toBe(0);

      await token.fill(ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Use token' }).click();
      await page.locator('tr[data-group="billing"]').waitFor({ timeout: UI_WAIT_MS });
      await expect(page.evaluate("sessionStorage.getItem('cohort.token')")).resolves.toBe(ADMIN_TOKEN);
      expect(sent).toContain(`Bearer ${ADMIN_TOKEN}`);
      expect(browser.errors.filter((e) => !e.includes('401'))).toEqual([]);
    });

    it('opens the OpenAPI page without a credential', async () => {
      await page.goto(`${app.url}/docs`);
      await page.locator('.swagger-ui .info .title').waitFor({ timeout: UI_WAIT_MS });
      await expect(page.locator('.swagger-ui .info .title').textContent()).resolves.toContain('Cohort');
    });
  });
});
