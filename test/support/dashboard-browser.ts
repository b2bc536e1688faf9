import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium (the `chromium` package); Playwright's own browser downloads are not used. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

const ROOT = resolve(__dirname, '..', '..');

export interface DashboardBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a fresh profile of its own, removed on close, so runs share no cookies or storage. */
export async function launchDashboardBrowser(): Promise<DashboardBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium package (apt-get install chromium)`);
  const userDataDir = mkdtempSync(join(tmpdir(), 'cohort-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 860 },
    timeout: 30_000,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Builds the dashboard into dist/ui (what `npm run build` does after the server build) unless it is
 * newer than its sources, so the tests run today's sources on a clean clone where nothing was built.
 */
export function buildDashboardAssets(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-ui.js'), '--if-stale'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 60_000 });
}
