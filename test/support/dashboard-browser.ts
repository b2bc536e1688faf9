import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { type Chromium, launchChromium } from './chromium';

const ROOT = resolve(__dirname, '..', '..');

export type DashboardBrowser = Chromium;

/** Chromium as every browser test launches it, at a desktop size for the dashboard's tables. */
export function launchDashboardBrowser(): Promise<DashboardBrowser> {
  return launchChromium({ viewport: { width: 1280, height: 860 } });
}

/**
 * Builds the dashboard into dist/ui (what `npm run build` does after the server build) unless it is
 * newer than its sources, so the tests run today's sources on a clean clone where nothing was built.
 */
export function buildDashboardAssets(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-ui.js'), '--if-stale'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 60_000,
  });
}
